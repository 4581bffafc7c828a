//! The walk kernels of the PTX, named once. Each entry point of crates/kernels is defined from
//! its [`WalkKernel`] here (its name, factor store, group and way of finding partners checked
//! at compile time), the host picks one with [`WalkKernel::find`], and the build and `cargo
//! xtask ptx-check` read [`ALL`]: a kernel renamed or added here is renamed or added for all.

use super::Partners;
use crate::group::Group;

/// A walk kernel: its entry point's name and what it walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkKernel {
    /// The entry point's name in the PTX.
    pub name: &'static str,
    /// Bytes of shared memory a factor takes: 4 (factors of at most 32 bits), 8 or 16.
    pub factor_bytes: usize,
    /// The group whose invariant schemes it walks ([`Group::Trivial`]: every scheme).
    pub group: Group,
    /// How its warps find flip partners.
    pub partners: Partners,
    /// Whether it checks its group searches against a pass (the self-test's twins).
    pub checked: bool,
    /// Whether it walks the ternary ring ZT ([`super::ternary`]) rather than F2.
    pub ternary: bool,
}

const fn kernel(
    name: &'static str,
    factor_bytes: usize,
    group: Group,
    partners: Partners,
    checked: bool,
) -> WalkKernel {
    WalkKernel {
        name,
        factor_bytes,
        group,
        partners,
        checked,
        ternary: false,
    }
}

/// The plain walk, 64-bit factors, sampled partners.
pub const WALK: WalkKernel = kernel("walk", 8, Group::Trivial, Partners::Sample, false);
/// [`WALK`] for factors of at most 32 bits.
pub const WALK32: WalkKernel = kernel("walk32", 4, Group::Trivial, Partners::Sample, false);
/// [`WALK`] for factors of more than 64 bits (up to 128).
pub const WALK128: WalkKernel = kernel("walk128", 16, Group::Trivial, Partners::Sample, false);
/// The walk of C3-invariant schemes, 64-bit factors.
pub const WALK_C3: WalkKernel = kernel("walk_c3", 8, Group::C3, Partners::Sample, false);
/// [`WALK_C3`] for factors of at most 32 bits.
pub const WALK32_C3: WalkKernel = kernel("walk32_c3", 4, Group::C3, Partners::Sample, false);
/// The walk of Z2-invariant schemes, 64-bit factors.
pub const WALK_Z2: WalkKernel = kernel("walk_z2", 8, Group::Z2, Partners::Sample, false);
/// [`WALK_Z2`] for factors of at most 32 bits.
pub const WALK32_Z2: WalkKernel = kernel("walk32_z2", 4, Group::Z2, Partners::Sample, false);
/// The walk of C6-invariant schemes, 64-bit factors.
pub const WALK_C6: WalkKernel = kernel("walk_c6", 8, Group::C6, Partners::Sample, false);
/// [`WALK_C6`] for factors of at most 32 bits.
pub const WALK32_C6: WalkKernel = kernel("walk32_c6", 4, Group::C6, Partners::Sample, false);
/// The plain walk with partners found by groups, 64-bit factors.
pub const WALK_GROUPS: WalkKernel = kernel("walk_groups", 8, Group::Trivial, Partners::Groups, false);
/// [`WALK_GROUPS`] for factors of at most 32 bits.
pub const WALK32_GROUPS: WalkKernel = kernel("walk32_groups", 4, Group::Trivial, Partners::Groups, false);
/// [`WALK_GROUPS`] for factors of more than 64 bits.
pub const WALK128_GROUPS: WalkKernel = kernel("walk128_groups", 16, Group::Trivial, Partners::Groups, false);
/// [`WALK_GROUPS`], checked, for the self-test.
pub const WALK_GROUPS_CHECKED: WalkKernel = kernel("walk_groups_checked", 8, Group::Trivial, Partners::Groups, true);
/// [`WALK32_GROUPS`], checked, for the self-test.
pub const WALK32_GROUPS_CHECKED: WalkKernel =
    kernel("walk32_groups_checked", 4, Group::Trivial, Partners::Groups, true);
/// [`WALK128_GROUPS`], checked, for the self-test.
pub const WALK128_GROUPS_CHECKED: WalkKernel =
    kernel("walk128_groups_checked", 16, Group::Trivial, Partners::Groups, true);

/// The plain walk over ZT: 128-bit words of two 64-bit planes, sampled partners
/// ([`super::ternary`]).
pub const WALK_ZT: WalkKernel = WalkKernel {
    ternary: true,
    ..kernel("walk_zt", 16, Group::Trivial, Partners::Sample, false)
};

/// Every walk kernel of the PTX.
pub const ALL: [WalkKernel; 16] = [
    WALK,
    WALK32,
    WALK128,
    WALK_C3,
    WALK32_C3,
    WALK_Z2,
    WALK32_Z2,
    WALK_C6,
    WALK32_C6,
    WALK_GROUPS,
    WALK32_GROUPS,
    WALK128_GROUPS,
    WALK_GROUPS_CHECKED,
    WALK32_GROUPS_CHECKED,
    WALK128_GROUPS_CHECKED,
    WALK_ZT,
];

impl WalkKernel {
    /// The F2 kernel that walks factors of `factor_bytes` under `group`, finding partners as
    /// `partners` does, checked or not; none where the PTX has none (symmetric walks sample
    /// their partners, and take at most 64-bit factors; only group walks have checked twins).
    /// The ternary walk is [`WALK_ZT`].
    pub fn find(factor_bytes: usize, group: Group, partners: Partners, checked: bool) -> Option<WalkKernel> {
        ALL.into_iter().find(|k| {
            !k.ternary
                && k.factor_bytes == factor_bytes
                && k.group == group
                && k.partners == partners
                && k.checked == checked
        })
    }

    /// Whether the kernel is named `name` (const, for the kernels' compile-time checks).
    pub const fn is_named(&self, name: &str) -> bool {
        let (a, b) = (self.name.as_bytes(), name.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_has_its_own_name_and_is_found_by_what_it_walks() {
        for (i, k) in ALL.iter().enumerate() {
            assert!(ALL[..i].iter().all(|o| o.name != k.name), "{} twice", k.name);
            let found = WalkKernel::find(k.factor_bytes, k.group, k.partners, k.checked);
            assert_eq!(found.filter(|_| !k.ternary), (!k.ternary).then_some(*k));
            assert!(k.is_named(k.name) && !k.is_named("walk_") && !k.is_named(""));
        }
        assert_eq!(WalkKernel::find(16, Group::C3, Partners::Sample, false), None);
        assert_eq!(WalkKernel::find(8, Group::Trivial, Partners::Sample, true), None);
    }
}
