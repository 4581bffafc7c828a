//! Verification speed: the naive 8x8x8 scheme (rank 512) and the 7x7x7 rank-245 record.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use flipgraph_core::formats;
use flipgraph_core::verify::{verify, verify_z};
use flipgraph_core::{IntScheme, Scheme, Shape};

fn bench(c: &mut Criterion) {
    let naive = Scheme::naive(Shape::square(8).unwrap());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/7x7x7-r245-seed.b32");
    let record = formats::read_path(path.as_ref())
        .expect("bundled seed")
        .scheme
        .mod2::<u64>()
        .expect("a 64-bit format");
    let ternary = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/7x7x7-r250-perminov-ternary.json"
    );
    let over_z = formats::read_path(ternary.as_ref()).expect("bundled json").scheme;
    c.bench_function("verify F2 naive 8x8x8 (rank 512)", |b| {
        b.iter(|| verify(black_box(&naive)))
    });
    c.bench_function("verify F2 7x7x7 rank 245", |b| b.iter(|| verify(black_box(&record))));
    let naive_z = IntScheme::from_f2(&naive);
    c.bench_function("verify Z naive 8x8x8 (rank 512)", |b| {
        b.iter(|| verify_z(black_box(&naive_z)))
    });
    c.bench_function("verify Z 7x7x7 rank 250", |b| b.iter(|| verify_z(black_box(&over_z))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
