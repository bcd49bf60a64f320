//! A campaign's final report as a file (`--report FILE`): JSON for
//! machines, Markdown for people, chosen by the file's extension.  Both
//! campaigns, in-process and binary, fill the same [`Summary`].

use std::fmt::Write as _;

use super::{Ending, Settings};
use crate::mismatch::Mismatch;

#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// "in-process" or "binaries".
    pub kind: &'static str,
    pub seed: u64,
    pub seconds: u64,
    pub jobs: usize,
    pub elapsed_seconds: f64,
    pub interrupted: bool,
    pub tools: Vec<ToolSummary>,
}

#[derive(Clone, Debug, Default)]
pub struct ToolSummary {
    pub name: &'static str,
    pub cases: u64,
    pub mismatch_count: usize,
    pub bytes_pushed: Option<u64>,
    /// Lines the text report gives under the table (grep's refill share,
    /// unreached cells).
    pub notes: Vec<String>,
    /// Binary campaign: the kernel paths taken, and the faults met on them
    /// (`None` where a fault does not apply to a path).
    pub paths: Vec<PathRow>,
    pub mismatches: Vec<MismatchSummary>,
}

#[derive(Clone, Debug, Default)]
pub struct PathRow {
    pub path: &'static str,
    pub cases: u64,
    pub faults: Vec<(&'static str, Option<u64>)>,
}

#[derive(Clone, Debug, Default)]
pub struct MismatchSummary {
    pub stream: String,
    pub variant: String,
    pub reproducer: String,
    /// The mismatch as the text report prints it, diff included.
    pub report: String,
}

impl MismatchSummary {
    pub fn of(m: &Mismatch) -> MismatchSummary {
        MismatchSummary {
            stream: format!("{:?}", m.stream),
            variant: m.variant.clone(),
            reproducer: m.reproducer.clone(),
            report: m.to_string(),
        }
    }
}

/// The formats `--report` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Markdown,
}

impl Format {
    /// The format a report file's name asks for.
    pub fn of_path(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Some(Format::Json)
        } else if lower.ends_with(".md") || lower.ends_with(".markdown") {
            Some(Format::Markdown)
        } else {
            None
        }
    }
}

impl Summary {
    pub fn new(kind: &'static str, settings: &Settings, elapsed: f64, ending: Ending) -> Summary {
        Summary {
            kind,
            seed: settings.seed,
            seconds: settings.seconds.as_secs(),
            jobs: settings.jobs,
            elapsed_seconds: elapsed,
            interrupted: ending == Ending::Interrupted,
            tools: Vec::new(),
        }
    }

    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Json => self.to_json(),
            Format::Markdown => self.to_markdown(),
        }
    }

    pub fn to_json(&self) -> String {
        let tools: Vec<String> = self.tools.iter().map(ToolSummary::to_json).collect();
        format!(
            "{{\"kind\":{},\"seed\":{},\"seconds\":{},\"jobs\":{},\"elapsed_seconds\":{:.3},\
\"interrupted\":{},\"mismatches\":{},\"tools\":[{}]}}\n",
            json_string(self.kind),
            self.seed,
            self.seconds,
            self.jobs,
            self.elapsed_seconds,
            self.interrupted,
            self.tools.iter().map(|t| t.mismatch_count).sum::<usize>(),
            tools.join(",")
        )
    }

    pub fn to_markdown(&self) -> String {
        let mut md = format!(
            "# samebytes differential campaign ({})\n\n{:.1} s of {} s on {} job{}, seed {}{}.\n\n",
            self.kind,
            self.elapsed_seconds,
            self.seconds,
            self.jobs,
            if self.jobs == 1 { "" } else { "s" },
            self.seed,
            if self.interrupted {
                "; **interrupted** (Ctrl-C): the cases finished before it"
            } else {
                ""
            }
        );
        let with_bytes = self.tools.iter().any(|t| t.bytes_pushed.is_some());
        md += if with_bytes {
            "| tool | cases | bytes pushed | mismatches |\n|---|---:|---:|---:|\n"
        } else {
            "| tool | cases | mismatches |\n|---|---:|---:|\n"
        };
        for t in &self.tools {
            let bytes = match (with_bytes, t.bytes_pushed) {
                (true, Some(b)) => format!(" {b} |"),
                (true, None) => " |".into(),
                (false, _) => String::new(),
            };
            let _ = writeln!(
                md,
                "| {} | {} |{bytes} {} |",
                t.name, t.cases, t.mismatch_count
            );
        }
        for t in &self.tools {
            t.paths_markdown(&mut md);
            if !t.notes.is_empty() {
                let _ = writeln!(md);
                for n in &t.notes {
                    let _ = writeln!(md, "- {}: {n}", t.name);
                }
            }
        }
        for t in &self.tools {
            for (i, m) in t.mismatches.iter().enumerate() {
                let _ = write!(
                    md,
                    "\n## {} mismatch {} in {}\n\n{}\n\n```sh\n{}\n```\n\n```\n{}```\n",
                    t.name,
                    i + 1,
                    m.stream,
                    m.variant,
                    m.reproducer,
                    m.report
                );
            }
        }
        md
    }
}

impl ToolSummary {
    fn to_json(&self) -> String {
        let paths: Vec<String> = self
            .paths
            .iter()
            .map(|p| {
                let faults: Vec<String> = p
                    .faults
                    .iter()
                    .map(|(f, n)| {
                        let n = n.map_or("null".to_string(), |n| n.to_string());
                        format!("{}:{n}", json_string(f))
                    })
                    .collect();
                format!(
                    "{{\"path\":{},\"cases\":{},\"faults_met\":{{{}}}}}",
                    json_string(p.path),
                    p.cases,
                    faults.join(",")
                )
            })
            .collect();
        let mismatches: Vec<String> = self
            .mismatches
            .iter()
            .map(|m| {
                format!(
                    "{{\"stream\":{},\"variant\":{},\"reproducer\":{},\"report\":{}}}",
                    json_string(&m.stream),
                    json_string(&m.variant),
                    json_string(&m.reproducer),
                    json_string(&m.report)
                )
            })
            .collect();
        let notes: Vec<String> = self.notes.iter().map(|n| json_string(n)).collect();
        format!(
            "{{\"tool\":{},\"cases\":{},\"bytes_pushed\":{},\"mismatch_count\":{},\"notes\":[{}],\
\"paths\":[{}],\"mismatches\":[{}]}}",
            json_string(self.name),
            self.cases,
            self.bytes_pushed
                .map_or("null".to_string(), |b| b.to_string()),
            self.mismatch_count,
            notes.join(","),
            paths.join(","),
            mismatches.join(",")
        )
    }

    fn paths_markdown(&self, md: &mut String) {
        let Some(first) = self.paths.first() else {
            return;
        };
        let _ = write!(
            md,
            "\n### {}: cases that took each path, and how many met each fault\n\n| path | cases |",
            self.name
        );
        for (f, _) in &first.faults {
            let _ = write!(md, " {f} |");
        }
        md.push_str("\n|---|---:|");
        md.push_str(&"---:|".repeat(first.faults.len()));
        md.push('\n');
        for p in &self.paths {
            let _ = write!(md, "| {} | {} |", p.path, p.cases);
            for (_, n) in &p.faults {
                let cell = n.map_or("n/a".to_string(), |n| n.to_string());
                let _ = write!(md, " {cell} |");
            }
            md.push('\n');
        }
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Summary {
        Summary {
            kind: "binaries",
            seed: 7,
            seconds: 60,
            jobs: 2,
            elapsed_seconds: 12.5,
            interrupted: true,
            tools: vec![ToolSummary {
                name: "grep",
                cases: 40,
                mismatch_count: 1,
                bytes_pushed: None,
                notes: vec!["grep read x short: never met".into()],
                paths: vec![PathRow {
                    path: "read",
                    cases: 39,
                    faults: vec![("short", Some(3)), ("sigbus", None)],
                }],
                mismatches: vec![MismatchSummary {
                    stream: "Stdout".into(),
                    variant: "binary, \"quoted\"\t\\".into(),
                    reproducer: "samebytes-oracle replay 'binary:grep:9'".into(),
                    report: "line\n\u{1}\u{7f}é\n".into(),
                }],
            }],
        }
    }

    #[test]
    fn the_json_report_parses_back_to_what_it_says() {
        let s = sample();
        let v: serde_json::Value = serde_json::from_str(&s.to_json()).expect("valid JSON");
        assert_eq!(v["kind"], "binaries");
        assert_eq!(v["interrupted"], true);
        assert_eq!(v["mismatches"], 1);
        let t = &v["tools"][0];
        assert_eq!(t["tool"], "grep");
        assert_eq!(t["cases"], 40);
        assert!(t["bytes_pushed"].is_null());
        assert_eq!(t["paths"][0]["faults_met"]["short"], 3);
        assert!(t["paths"][0]["faults_met"]["sigbus"].is_null());
        let m = &t["mismatches"][0];
        assert_eq!(m["variant"], s.tools[0].mismatches[0].variant.as_str());
        assert_eq!(m["report"], s.tools[0].mismatches[0].report.as_str());
    }

    #[test]
    fn json_strings_escape_every_control_character() {
        for c in (0u8..0x20)
            .map(char::from)
            .chain(['"', '\\', '\u{7f}', 'ÿ'])
        {
            let text = format!("a{c}b");
            let back: String = serde_json::from_str(&json_string(&text)).expect("valid");
            assert_eq!(back, text);
        }
    }

    #[test]
    fn the_markdown_report_has_the_table_paths_and_reproducers() {
        let md = sample().to_markdown();
        assert!(md.contains("**interrupted**"), "{md}");
        assert!(md.contains("| grep | 40 | 1 |\n"), "{md}");
        assert!(md.contains("| read | 39 | 3 | n/a |\n"), "{md}");
        assert!(
            md.contains("```sh\nsamebytes-oracle replay 'binary:grep:9'\n```"),
            "{md}"
        );
        assert!(md.contains("- grep: grep read x short: never met"), "{md}");
    }

    #[test]
    fn the_format_follows_the_extension() {
        assert_eq!(Format::of_path("r.json"), Some(Format::Json));
        assert_eq!(Format::of_path("R.MD"), Some(Format::Markdown));
        assert_eq!(Format::of_path("r.markdown"), Some(Format::Markdown));
        assert_eq!(Format::of_path("r.txt"), None);
    }
}
