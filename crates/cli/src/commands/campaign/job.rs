//! A campaign as an MPI job (`mpirun -n K flipgraph campaign ...`): every process is one lane
//! (its own GPU, or its share of its host's cores), process 0 holds the queue of turns and
//! prints the table, and the others ask it for their turns as they free up. The formats'
//! folders must be one folder for the whole job (one host, or a shared file system): a turn
//! builds its start from the results of the formats before it, whichever process found them.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use flipgraph_cluster::Job;
use serde::{Deserialize, Serialize};

use super::format::Standing;
use super::schedule::{Next, Schedule, Turn};
use super::{formats, public_bests, report, Args, Queue, Work};
use crate::commands::lanes::{host_gpus, lane};
use crate::commands::search::interrupt_flag;

/// What a process asks of process 0.
#[derive(Serialize, Deserialize)]
enum Request {
    /// The next turn (answered with an `Option<Turn>`; None: no more for this process).
    Take,
    /// A turn ended: its format's folder says where it stands, beside the construction it
    /// started from or why it failed.
    Finished {
        turn: Turn,
        start: Option<String>,
        failed: Option<String>,
    },
    /// This process takes no more turns (Ctrl-C, or the end of --total).
    Ended,
}

/// How often process 0 looks for requests while it serves.
const SERVE_EVERY: Duration = Duration::from_millis(20);

pub fn run(args: &Args, job: &Job, process_start: Instant) -> Result<ExitCode> {
    if args.jobs.is_some() {
        bail!("--jobs: in an MPI job every process searches one format at a time; start one process per lane (mpirun -n K)");
    }
    let stop = interrupt_flag()?;
    let sizes = formats(&args.sizes);
    let public = public_bests(args)?;
    let lane = lane(&args.engine, job.local_index, job.local_size, host_gpus(&args.engine)?);
    match job.index() {
        0 => {
            tracing::info!("{} formats at a time, one a process", job.size());
            let schedule = Schedule::new(sizes.len(), args.passes);
            let work = Work {
                side_by_side: true,
                process: Some(0),
                public: public.as_ref(),
                ..Work::new(args, &sizes, &schedule, &stop, process_start)
            };
            let own_done = AtomicBool::new(false);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    work.run(&lane);
                    own_done.store(true, Ordering::Relaxed);
                });
                serve(job, &work, &own_done);
            });
            Ok(report(args, &sizes, schedule))
        }
        process => {
            let remote = Remote { job };
            let work = Work {
                side_by_side: true,
                process: Some(process),
                public: public.as_ref(),
                ..Work::new(args, &sizes, &remote, &stop, process_start)
            };
            work.run(&lane);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Process 0: hands the other processes their turns until each has taken its last, and its
/// own lane (`own_done`) has ended.
fn serve(job: &Job, work: &Work<'_, Schedule<Standing>>, own_done: &AtomicBool) {
    let schedule = work.queue;
    let mut others = job.size() - 1;
    // The processes whose request waits for a format being searched.
    let mut waiting: Vec<usize> = Vec::new();
    while others > 0 || !own_done.load(Ordering::Relaxed) {
        while let Some((from, bytes)) = job.next_request() {
            match serde_json::from_slice(&bytes) {
                Ok(Request::Take) => waiting.push(from),
                Ok(Request::Finished { turn, start, failed }) => {
                    let shape = work.sizes[turn.format];
                    let now = match failed {
                        Some(failed) => Standing::failed_with(shape, work.args.engine.ring, failed),
                        None => Standing {
                            start,
                            ..Standing::on_disk(shape, work.args.engine.ring, &work.args.out)
                        },
                    };
                    Queue::finish(schedule, turn, now);
                }
                Ok(Request::Ended) => others -= 1,
                // Only this binary sends these; a damaged one would leave its sender waiting.
                Err(e) => {
                    tracing::error!("process {from}: a damaged request ({e}); ending the job");
                    job.abort(1)
                }
            }
        }
        waiting.retain(|&from| {
            let turn = match schedule.poll(work.halted()) {
                Next::Wait => return true,
                Next::Turn(turn) => Some(turn),
                Next::Done => {
                    others -= 1;
                    None
                }
            };
            job.answer(from, &serde_json::to_vec(&turn).expect("a turn serializes"));
            false
        });
        std::thread::sleep(SERVE_EVERY);
    }
}

/// The queue of a process other than 0: process 0's, over MPI.
struct Remote<'a> {
    job: &'a Job,
}

impl Remote<'_> {
    fn send(&self, request: &Request) {
        self.job
            .request(&serde_json::to_vec(request).expect("a request serializes"));
    }
}

impl Queue for Remote<'_> {
    fn take(&self, halt: &dyn Fn() -> bool) -> Option<Turn> {
        if halt() {
            self.send(&Request::Ended);
            return None;
        }
        self.send(&Request::Take);
        let answer = self.job.answer_from_0();
        serde_json::from_slice(&answer).unwrap_or_else(|e| {
            tracing::error!("a damaged answer from process 0 ({e}); ending the job");
            self.job.abort(1)
        })
    }

    fn finish(&self, turn: Turn, now: Standing) {
        self.send(&Request::Finished {
            turn,
            start: now.start,
            failed: now.failed,
        });
    }
}
