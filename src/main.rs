//! `mancala`: the command line. It only parses arguments, calls down into
//! the library, and maps the result to an exit code.
//!
//! The referee runs as one process per mail, so its start is part of every
//! mail's cost. std's own start adds a stack guard read from
//! `/proc/self/maps` and a signal stack mapped and unmapped, about 80 µs of
//! a 2 ms hosted move (README, Performance). So on glibc's Linux, where std
//! reads the arguments by itself (glibc hands them to `.init_array`), this
//! program has its own C `main`, which does only the two things of std's
//! start that it relies on. What it does without: the message std prints
//! when the main thread overflows its stack (that process dies of a signal
//! either way), and the main thread's name (a panic's message says
//! `'<unnamed>'`, not `'main'`). Elsewhere std's start must read the
//! arguments: the usual `main`.
#![cfg_attr(all(not(test), target_os = "linux", target_env = "gnu"), no_main)]

// A test build has the test harness's main instead, and uses the module
// only for its tests.
#[cfg_attr(test, allow(dead_code))]
mod cli;

#[cfg(all(not(test), target_os = "linux", target_env = "gnu"))]
mod start {
    use std::ffi::{c_char, c_int};

    #[unsafe(no_mangle)]
    extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
        as_std_does();
        // A panic must not unwind out of a C function; cli::main catches
        // those of the commands, this the rest, with std's code for a
        // panicked main.
        let code = std::panic::catch_unwind(super::cli::main).unwrap_or(101);
        // std flushes standard output at exit; a C main must do it itself.
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    }

    /// What std's start does that this program relies on.
    fn as_std_does() {
        open_closed_standard_fds();
        // A closed pipe is an error to report (EPIPE), not a kill: a
        // sendmail that dies is a failed send, and the mail is kept.
        // std's Command sets it back to the default in its children.
        // SAFETY: sets this process's disposition of one signal, before
        // any other thread exists.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    }

    /// A standard descriptor left closed by the caller is opened on
    /// /dev/null, so that no file opened later becomes standard output (a
    /// store file written over by a reply). As std's start: by one poll,
    /// else (fewer than three descriptors allowed) by asking each.
    fn open_closed_standard_fds() {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        loop {
            // SAFETY: polls three pollfds that live on this stack.
            if unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } >= 0 {
                for fd in fds.iter().filter(|fd| fd.revents & libc::POLLNVAL != 0) {
                    open_null_at(fd.fd);
                }
                return;
            }
            match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => {}
                Some(libc::EINVAL | libc::EAGAIN | libc::ENOMEM) => {
                    for fd in 0..3 {
                        // SAFETY: asks for a descriptor's flags, nothing more.
                        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
                        let error = std::io::Error::last_os_error().raw_os_error();
                        if flags == -1 && error == Some(libc::EBADF) {
                            open_null_at(fd);
                        }
                    }
                    return;
                }
                _ => std::process::abort(),
            }
        }
    }

    /// /dev/null as descriptor `fd`, which is closed; as std's start, the
    /// process aborts when it cannot be opened.
    fn open_null_at(fd: c_int) {
        // SAFETY: opens a file and moves its descriptor to one that is
        // closed, before any other thread exists.
        unsafe {
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            if null == -1 {
                std::process::abort();
            }
            if null != fd {
                libc::dup2(null, fd);
                libc::close(null);
            }
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(u8::try_from(cli::main()).unwrap_or(1))
}
