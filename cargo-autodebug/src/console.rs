//! What people see on the terminal: cargo-style status lines on stderr, and progress with
//! counts and an ETA that redraws in place on a terminal (plain lines otherwise).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

/// The console of one run.
pub struct Console {
    /// Redraw progress in place (stderr is a terminal).
    live: bool,
    /// Use colour (a terminal, and `NO_COLOR` unset).
    colour: bool,
    verbose: bool,
}

impl Console {
    /// A console on stderr.
    pub fn new(verbose: bool) -> Console {
        let live = std::io::stderr().is_terminal();
        let colour = live && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Console {
            live,
            colour,
            verbose,
        }
    }

    /// A cargo-style status line: a right-aligned verb, then the message.
    pub fn status(&self, verb: &str, message: &str) {
        let verb = if self.colour {
            format!("\x1b[1;32m{verb:>12}\x1b[0m")
        } else {
            format!("{verb:>12}")
        };
        eprintln!("{verb} {message}");
    }

    /// A warning.
    pub fn warn(&self, message: &str) {
        let label = if self.colour {
            "\x1b[1;33mwarning\x1b[0m"
        } else {
            "warning"
        };
        eprintln!("{label}: {message}");
    }

    /// An error line (the run stops after it).
    pub fn error(&self, message: &str) {
        let label = if self.colour {
            "\x1b[1;31merror\x1b[0m"
        } else {
            "error"
        };
        eprintln!("{label}: {message}");
    }

    /// A detail shown with `-v` only.
    pub fn detail(&self, message: &str) {
        if self.verbose {
            eprintln!("{:>12} {message}", "");
        }
    }

    /// Progress over `total` items of a phase.
    pub fn progress(&self, verb: &str, what: &str, total: usize) -> Progress<'_> {
        self.status(verb, &format!("{what} ({total})"));
        Progress {
            console: self,
            what: what.to_string(),
            total,
            state: Mutex::new((0, Instant::now())),
        }
    }
}

/// Progress of one phase.
pub struct Progress<'a> {
    console: &'a Console,
    what: String,
    total: usize,
    state: Mutex<(usize, Instant)>,
}

impl Progress<'_> {
    /// One more item done; `last` says which and how it went.
    pub fn tick(&self, last: &str) {
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        let (done, start) = *state;
        if self.console.live {
            let elapsed = start.elapsed().as_secs_f64();
            let eta = elapsed / done as f64 * (self.total - done) as f64;
            let mut line = format!(
                "{:>12} [{done}/{}] {} — {last}, ETA {eta:.0}s",
                "", self.total, self.what
            );
            line.truncate(line.char_indices().nth(110).map_or(line.len(), |(i, _)| i));
            eprint!("\r\x1b[2K{line}");
            let _ = std::io::stderr().flush();
        } else {
            self.console
                .detail(&format!("[{done}/{}] {last}", self.total));
        }
    }

    /// The phase is over.
    pub fn finish(&self) {
        if self.console.live {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}
