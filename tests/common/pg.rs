//! A private PostgreSQL server for the tests: Debian's `postgresql`
//! binaries, a cluster in a folder of the test's own under TMPDIR, on a
//! Unix socket there (no TCP port), started once a test process and
//! stopped when the process ends (a watcher shell waits on it), its folder
//! then removed. Each caller gets a database of its own on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The running server: its socket folder, and the folder of its binaries.
pub struct Server {
    socket: PathBuf,
    bin: PathBuf,
    /// Who runs the server's programs (`postgres` when the tests run as
    /// root, whom PostgreSQL refuses), by `runuser`.
    user: Option<&'static str>,
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// Where `initdb` and `postgres` are: on PATH, else Debian's folder.
fn bin_folder() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).find(|dir| dir.join("initdb").is_file()));
    let on_path = on_path.and_then(|dir| std::fs::canonicalize(dir.join("initdb")).ok());
    if let Some(initdb) = on_path {
        return initdb.parent().map(Path::to_path_buf);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

impl Server {
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    fn start() -> Result<Server, String> {
        let bin = bin_folder().ok_or("no initdb: install Debian's postgresql")?;
        let user = is_root().then_some("postgres");
        let dir = tempfile::Builder::new()
            .prefix("mancala-test-postgres-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        if let Some(user) = user {
            let chown = Command::new("chown")
                .args(["-R", user])
                .arg(&dir)
                .status()
                .map_err(|e| e.to_string())?;
            if !chown.success() {
                return Err(format!("chown {user} {}: {chown}", dir.display()));
            }
        }
        let server = Server {
            socket: dir.clone(),
            bin,
            user,
        };
        let data = dir.join("data");
        let init = server
            .command("initdb")
            .args(["-D"])
            .arg(&data)
            .args(["-U", "test", "--auth=trust", "-E", "UTF8", "--no-sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !init.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "initdb: {}",
                String::from_utf8_lossy(&init.stderr).trim()
            ));
        }
        // The server lives as long as this test process: a watcher stops
        // it (and removes its folder) once the process is gone.
        let watcher = format!(
            "{postgres} -D {data} -k {dir} -c listen_addresses= -c fsync=off \
             -c max_connections=60 >{dir}/log 2>&1 & pg=$!; \
             while [ -d /proc/{parent} ]; do sleep 0.3; done; \
             kill -INT $pg; wait $pg; rm -rf {dir}",
            postgres = server.bin.join("postgres").display(),
            data = data.display(),
            dir = dir.display(),
            parent = std::process::id(),
        );
        let mut start = match user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--", "sh", "-c", &watcher]);
                c
            }
            None => {
                let mut c = Command::new("sh");
                c.args(["-c", &watcher]);
                c
            }
        };
        start
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("postgres: {e}"))?;
        let socket = dir.join(".s.PGSQL.5432");
        for _ in 0..300 {
            if socket.exists() && server.createdb("ready", None).is_ok() {
                return Ok(server);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
        Err(format!("postgres did not start: {log}"))
    }

    fn createdb(&self, name: &str, template: Option<&str>) -> Result<(), String> {
        let template = template.map(|t| format!("--template={t}"));
        let made = self
            .command("createdb")
            .args(["-h"])
            .arg(&self.socket)
            .args(["-U", "test", name])
            .args(template)
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| e.to_string())?;
        match made.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&made.stderr).trim().to_string()),
        }
    }

    /// The address of a database of this server's.
    pub fn url(&self, database: &str) -> String {
        let host: String = self
            .socket
            .to_string_lossy()
            .replace('%', "%25")
            .replace('/', "%2F");
        format!("postgresql://test@{host}/{database}")
    }
}

/// A new, empty database of the test server's own, for `name`: `Err`
/// with the reason when no server can start here.
pub fn database(name: &str) -> Result<String, String> {
    copied(name, None)
}

/// A new database of the test server's own, a copy of the database at
/// `url` (which nobody may be connected to).
pub fn copy_of(url: &str, name: &str) -> Result<String, String> {
    let template = url.rsplit('/').next().ok_or("not a database's address")?;
    copied(name, Some(template))
}

fn copied(name: &str, template: Option<&str>) -> Result<String, String> {
    let server = SERVER.get_or_init(Server::start).as_ref()?;
    let n = DATABASES.fetch_add(1, Ordering::Relaxed);
    let clean: String = (name.chars())
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_lowercase(),
            false => '_',
        })
        .collect();
    let database = format!("t{n}_{clean}");
    server.createdb(&database, template)?;
    Ok(server.url(&database))
}

/// The store a test runs on: PostgreSQL when MANCALA_TEST_STORE is
/// `postgres` (the test fails if no server starts), else a SQLite file in
/// `dir`.
pub fn store_for(dir: &Path, name: &str) -> String {
    match std::env::var("MANCALA_TEST_STORE").as_deref() {
        Ok("postgres") => {
            database(name).unwrap_or_else(|why| panic!("MANCALA_TEST_STORE=postgres, but: {why}"))
        }
        _ => dir.join("referee.db").to_string_lossy().into_owned(),
    }
}
