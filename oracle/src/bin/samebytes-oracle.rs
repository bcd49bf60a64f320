//! `samebytes-oracle`: run a differential campaign, or replay a reproducer.
//!
//!     samebytes-oracle [campaign] [--seconds N] [--seed S]
//!     samebytes-oracle replay 'wc:<hex>'

use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: samebytes-oracle [campaign] [--seconds N] [--seed S]\n       samebytes-oracle replay REPRODUCER\n";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("replay") {
        let Some(repro) = args.get(1) else {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        };
        return match samebytes_oracle::replay(repro) {
            Ok(Ok(())) => {
                println!("replayed: spec and implementation agree");
                ExitCode::SUCCESS
            }
            Ok(Err(m)) => {
                println!("{m}");
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("samebytes-oracle: {e}");
                ExitCode::from(2)
            }
        };
    }
    let mut seconds = 60u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut it = args.iter().skip_while(|a| *a == "campaign");
    while let Some(a) = it.next() {
        let value = it.next().and_then(|v| v.parse::<u64>().ok());
        match (a.as_str(), value) {
            ("--seconds", Some(v)) => seconds = v,
            ("--seed", Some(v)) => seed = v,
            _ => {
                eprint!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let per_tool = Duration::from_secs(seconds);
    let reports = samebytes_oracle::campaign::run(per_tool, seed);
    print!(
        "{}",
        samebytes_oracle::campaign::render(&reports, per_tool, seed)
    );
    if reports.iter().any(|r| !r.mismatches.is_empty()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
