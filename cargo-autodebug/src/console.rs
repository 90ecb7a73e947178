//! What people see on the terminal: cargo-style status lines on stderr, progress with counts
//! and an ETA that redraws in place on a terminal (plain lines otherwise), colour as cargo
//! decides it (`--color`, `CARGO_TERM_COLOR`, `NO_COLOR`), and — under
//! `--message-format json` — the run's events as JSON lines on stdout (see [`crate::events`]).
//! Nothing else of the tool writes to stdout.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::model::Event;
use crate::options::{ColorChoice, MessageFormat, Options};

/// Width a progress line is cut to.
const LINE_WIDTH: usize = 110;

/// How often a plain (not redrawn) progress line is printed, at most.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The console of one run.
pub struct Console {
    /// Redraw progress in place (stderr is a terminal).
    live: bool,
    /// Colour on stderr.
    colour: bool,
    /// Colour in the summary on stdout.
    colour_stdout: bool,
    verbose: bool,
    /// `-q`: no status or progress lines.
    quiet: bool,
    /// `-vv`: the cargo commands run, too.
    commands: bool,
    /// Events as JSON lines on stdout.
    json: bool,
    /// A progress line is on the screen (it is cleared before anything else is printed).
    drawn: Mutex<bool>,
}

/// Whether to colour a stream: `choice` (from `--color`, else `CARGO_TERM_COLOR`), then for
/// `auto` a terminal and `NO_COLOR` unset or empty.
pub fn colour_for(
    choice: Option<ColorChoice>,
    cargo_term_color: Option<&str>,
    no_color: Option<&str>,
    terminal: bool,
) -> bool {
    let choice = choice
        .or_else(|| cargo_term_color.and_then(|v| clap::ValueEnum::from_str(v, true).ok()))
        .unwrap_or(ColorChoice::Auto);
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(str::is_empty),
    }
}

/// Colour of the run's environment for a stream that is (or not) a terminal.
fn colour_of_env(choice: Option<ColorChoice>, terminal: bool) -> bool {
    let var = |name| std::env::var(name).ok();
    colour_for(
        choice,
        var("CARGO_TERM_COLOR").as_deref(),
        var("NO_COLOR").as_deref(),
        terminal,
    )
}

impl Console {
    /// The console the options ask for, on stderr (and stdout for events).
    pub fn new(options: &Options) -> Console {
        let color = match &options.command {
            Some(crate::options::Command::Init(init)) => init.color.or(options.color),
            Some(crate::options::Command::Merge(merge)) => merge.color.or(options.color),
            Some(crate::options::Command::Clean(clean)) => clean.color.or(options.color),
            None => options.color,
        };
        let mut console = Console::with(
            color,
            options.verbose > 0,
            options.message_format == MessageFormat::Json,
        );
        console.quiet = options.quiet;
        console.commands = options.verbose > 1;
        console
    }

    /// A console with these settings, on the process's own streams.
    pub fn with(color: Option<ColorChoice>, verbose: bool, json: bool) -> Console {
        let live = std::io::stderr().is_terminal();
        Console {
            live,
            colour: colour_of_env(color, live),
            colour_stdout: colour_of_env(color, std::io::stdout().is_terminal()),
            verbose,
            quiet: false,
            commands: false,
            json,
            drawn: Mutex::new(false),
        }
    }

    /// The summary on stdout is coloured.
    pub fn colour_stdout(&self) -> bool {
        self.colour_stdout
    }

    /// Writes one line on stderr, clearing a progress line first.
    fn line(&self, text: &str) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        let mut stderr = std::io::stderr().lock();
        if *drawn {
            let _ = write!(stderr, "\r\x1b[2K");
            *drawn = false;
        }
        let _ = writeln!(stderr, "{text}");
    }

    /// Redraws the progress line (a terminal only).
    fn redraw(&self, text: &str) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        let mut stderr = std::io::stderr().lock();
        let _ = write!(stderr, "\r\x1b[2K{text}");
        let _ = stderr.flush();
        *drawn = true;
    }

    /// Clears the progress line.
    fn clear(&self) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        if *drawn {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
            *drawn = false;
        }
    }

    /// `text` in an SGR style (`1;32`) when colouring stderr.
    fn paint(&self, style: &str, text: &str) -> String {
        paint(self.colour, style, text)
    }

    /// One event, as a JSON line on stdout (`--message-format json` only).
    pub fn event(&self, event: &Event) {
        if !self.json {
            return;
        }
        // `reason` first, as in cargo's messages; then `event`, the same, as the first
        // versions wrote (serde writes an enum's tag first: `{"reason":"NAME",…`).
        let tagged = serde_json::to_string(event).map(|json| {
            let reason = json
                .strip_prefix("{\"reason\":\"")
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default()
                .to_string();
            let head = format!("{{\"reason\":\"{reason}\"");
            json.replacen(&head, &format!("{head},\"event\":\"{reason}\""), 1)
        });
        match tagged {
            Ok(json) => {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{json}");
                let _ = stdout.flush();
            }
            Err(error) => self.line(&format!("error: an event could not be written: {error}")),
        }
    }

    /// A cargo-style status line: a right-aligned verb, then the message.
    pub fn status(&self, verb: &str, message: &str) {
        if !self.quiet {
            self.line(&format!(
                "{} {message}",
                self.paint("1;32", &format!("{verb:>12}"))
            ));
        }
        self.event(&Event::Status { verb, message });
    }

    /// A command about to run, shown with `-vv` (as cargo shows rustc's with `-v`).
    pub fn command(&self, command: &std::process::Command) {
        if self.commands {
            let args: Vec<String> = command
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            self.line(&format!(
                "{} `{} {}`",
                self.paint("1;32", &format!("{:>12}", "Running")),
                command.get_program().to_string_lossy(),
                args.join(" ")
            ));
        }
    }

    /// A warning.
    pub fn warn(&self, message: &str) {
        self.line(&format!("{}: {message}", self.paint("1;33", "warning")));
        self.event(&Event::Warning { message });
    }

    /// An error line (the run stops after it).
    pub fn error(&self, message: &str) {
        self.line(&format!("{}: {message}", self.paint("1;31", "error")));
        self.event(&Event::Error { message });
    }

    /// Text from elsewhere (the compiler's errors) passed on as it is, on stderr.
    pub fn passthrough(&self, text: &str) {
        self.line(text.trim_end_matches('\n'));
    }

    /// A detail shown with `-v` only.
    pub fn detail(&self, message: &str) {
        if self.verbose {
            self.line(&format!("{:>12} {message}", ""));
        }
    }

    /// Progress over `total` items of a phase named by `what` (`baseline`, `traces`).
    pub fn progress(&self, verb: &str, what: &str, total: usize) -> Progress<'_> {
        self.status(verb, &format!("{what} ({total})"));
        self.start(verb, what, Some(total))
    }

    /// Progress over a number of items (`what`) not known in advance: a live count, shown
    /// against the count of the previous time, which `memory` keeps (for a build: the units
    /// cargo reported last time), with an ETA from it.
    pub fn counter(
        &self,
        verb: &str,
        phase: &str,
        what: &str,
        memory: std::path::PathBuf,
    ) -> Progress<'_> {
        let mut progress = self.start_phase(verb, phase, what, None);
        progress.estimate = std::fs::read_to_string(&memory)
            .ok()
            .and_then(|text| text.trim().parse().ok());
        progress.memory = Some(memory);
        progress
    }

    /// Progress over `total` items of a phase named `phase` in events, without a status line
    /// (a phase inside a stage that announced itself).
    pub fn phase(&self, verb: &str, phase: &str, what: &str, total: usize) -> Progress<'_> {
        self.start_phase(verb, phase, what, Some(total))
    }

    fn start(&self, verb: &str, what: &str, total: Option<usize>) -> Progress<'_> {
        self.start_phase(verb, &what.replace(' ', "-"), what, total)
    }

    fn start_phase(
        &self,
        verb: &str,
        phase: &str,
        what: &str,
        total: Option<usize>,
    ) -> Progress<'_> {
        let phase = phase.to_string();
        self.event(&Event::PhaseStarted {
            phase: &phase,
            total,
        });
        let now = Instant::now();
        Progress {
            console: self,
            verb: verb.to_string(),
            what: what.to_string(),
            phase,
            total,
            estimate: None,
            memory: None,
            state: Mutex::new(State {
                done: 0,
                start: now,
                shown: now,
                finished: false,
            }),
        }
    }
}

/// `text` in an SGR style when `colour`.
pub fn paint(colour: bool, style: &str, text: &str) -> String {
    if colour {
        format!("\x1b[{style}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Progress of one phase.
pub struct Progress<'a> {
    console: &'a Console,
    verb: String,
    what: String,
    /// The phase's name in events.
    phase: String,
    total: Option<usize>,
    /// The count of the previous time, when the total is not known.
    estimate: Option<usize>,
    /// Where the count is kept for the next time.
    memory: Option<std::path::PathBuf>,
    state: Mutex<State>,
}

struct State {
    done: usize,
    start: Instant,
    /// When a plain progress line was last printed.
    shown: Instant,
    finished: bool,
}

impl Progress<'_> {
    /// One more item done; `last` says which and how it went.
    pub fn tick(&self, last: &str) {
        self.advance(1, last);
    }

    /// `n` more items done.
    pub fn advance(&self, n: usize, last: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.done += n;
        let done = state.done;
        let elapsed = state.start.elapsed().as_secs_f64();
        let console = self.console;
        console.event(&Event::Progress {
            phase: &self.phase,
            done,
            total: self.total,
            last,
        });
        let count = match (self.total, self.estimate) {
            (Some(total), _) => format!("[{done}/{total}]"),
            (None, Some(estimate)) if done < estimate => format!("[{done}/~{estimate}]"),
            (None, _) => format!("[{done}]"),
        };
        let eta = match self.total.or(self.estimate) {
            Some(total) if done < total => {
                format!(
                    ", ETA {:.0}s",
                    elapsed / done as f64 * (total - done) as f64
                )
            }
            _ => String::new(),
        };
        if console.quiet {
            // Events only.
        } else if console.live {
            let mut line = format!(
                "{} {count} {} — {last}{eta}",
                console.paint("1;36", &format!("{:>12}", self.verb)),
                self.what
            );
            cut(&mut line, LINE_WIDTH);
            console.redraw(&line);
        } else if console.verbose {
            console.detail(&format!("{count} {last}"));
        } else if state.shown.elapsed() >= PLAIN_EVERY && self.total != Some(done) {
            // Not a terminal (a CI log): a line now and then, so a long phase shows life.
            state.shown = Instant::now();
            console.line(&format!("{:>12} {count} {}{eta}", self.verb, self.what));
        }
    }

    /// The phase is over.
    pub fn finish(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.finished {
            return;
        }
        state.finished = true;
        if let Some(memory) = &self.memory
            && state.done > 0
        {
            // Only a guess for the next time: a failure to keep it costs nothing.
            let _ = std::fs::write(memory, state.done.to_string());
        }
        self.console.clear();
        self.console.event(&Event::PhaseFinished {
            phase: &self.phase,
            done: state.done,
            elapsed_s: state.start.elapsed().as_secs_f64(),
        });
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Cuts `line` to `width` characters (escape sequences count, which only shortens it).
fn cut(line: &mut String, width: usize) {
    if let Some((i, _)) = line.char_indices().nth(width) {
        line.truncate(i);
        line.push_str("\x1b[0m");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_cargo() {
        use ColorChoice::*;
        // --color wins over everything.
        assert!(colour_for(Some(Always), None, Some("1"), false));
        assert!(!colour_for(Some(Never), Some("always"), None, true));
        // CARGO_TERM_COLOR stands for --color when it is not given.
        assert!(colour_for(None, Some("always"), None, false));
        assert!(!colour_for(None, Some("never"), None, true));
        // auto: a terminal, and NO_COLOR unset or empty.
        assert!(colour_for(None, None, None, true));
        assert!(colour_for(Some(Auto), None, Some(""), true));
        assert!(!colour_for(None, None, Some("1"), true));
        assert!(!colour_for(None, Some("auto"), None, false));
        // An unknown CARGO_TERM_COLOR is auto.
        assert!(colour_for(None, Some("sometimes"), None, true));
    }

    #[test]
    fn cut_keeps_short_lines() {
        let mut line = "short".to_string();
        cut(&mut line, 10);
        assert_eq!(line, "short");
        let mut line = "é".repeat(20);
        cut(&mut line, 10);
        assert_eq!(line, format!("{}\x1b[0m", "é".repeat(10)));
    }
}
