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
use flipgraph_search::campaign::lanes::{host_gpus, lane};
use flipgraph_search::campaign::schedule::{Next, Schedule, Turn};
use flipgraph_search::campaign::{Queue, Standing, Work};
use flipgraph_search::Campaign;
use serde::{Deserialize, Serialize};

use super::{report, Said};
use crate::interrupt::interrupt_flag;

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

pub fn run(campaign: &Campaign, job: &Job, process_start: Instant) -> Result<ExitCode> {
    if campaign.jobs.is_some() {
        bail!("--jobs: in an MPI job every process searches one format at a time; start one process per lane (mpirun -n K)");
    }
    let stop = interrupt_flag()?;
    let sizes = &campaign.sizes;
    let public = campaign.public_bests()?;
    let recipe = &campaign.recipe;
    let lane = lane(recipe, job.local_index, job.local_size, host_gpus(recipe)?);
    let said = Said { json: campaign.json };
    match job.index() {
        0 => {
            tracing::info!("{} formats at a time, one a process", job.size());
            let schedule = Schedule::new(sizes.len(), campaign.passes);
            let work = Work::new(campaign, sizes, &schedule, (&stop, process_start), &said)
                .side_by_side(Some(0))
                .from_public(public.as_ref());
            let own_done = AtomicBool::new(false);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    work.run(lane);
                    own_done.store(true, Ordering::Relaxed);
                });
                serve(job, (campaign, &work, &schedule), &own_done);
            });
            Ok(report(&campaign.table(sizes, schedule), campaign.json))
        }
        process => {
            let remote = Remote { job };
            Work::new(campaign, sizes, &remote, (&stop, process_start), &said)
                .side_by_side(Some(process))
                .from_public(public.as_ref())
                .run(lane);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Process 0: hands the other processes their turns from `schedule` until each has taken its
/// last, and its own lane (`own_done`) has ended.
fn serve(
    job: &Job,
    (campaign, work, schedule): (&Campaign, &Work<'_, Schedule<Standing>>, &Schedule<Standing>),
    own_done: &AtomicBool,
) {
    let mut others = job.size() - 1;
    // The processes whose request waits for a format being searched.
    let mut waiting: Vec<usize> = Vec::new();
    while others > 0 || !own_done.load(Ordering::Relaxed) {
        while let Some((from, bytes)) = job.next_request() {
            match serde_json::from_slice(&bytes) {
                Ok(Request::Take) => waiting.push(from),
                Ok(Request::Finished { turn, start, failed }) => {
                    let shape = campaign.sizes[turn.format];
                    let now = match failed {
                        Some(failed) => Standing::failed(shape, campaign.ring(), failed),
                        None => Standing {
                            start,
                            ..Standing::on_disk(shape, campaign.ring(), &campaign.out)
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
