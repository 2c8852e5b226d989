//! `gemp partition`, `gemp match --parts DIR [--cluster HOSTFILE --process I]` and
//! `gemp cluster run`.

#[cfg(feature = "cluster")]
use std::io::Write;
use std::path::PathBuf;
#[cfg(feature = "cluster")]
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

/// Arguments of `gemp partition`.
#[derive(Debug, Args)]
#[command(after_help = "Example:
  gemp partition imdb.gemp --parts 4 -o imdb-parts/")]
pub struct PartitionArgs {
    /// The model: a .gemp snapshot.
    pub model: PathBuf,
    /// Number of parts (nodes go to part xxh3(node id) mod N).
    #[arg(long, value_name = "N")]
    pub parts: u32,
    /// The directory of the partition set (written atomically).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
    /// Replace an existing partition set in DIR.
    #[arg(long)]
    pub force: bool,
}

/// `gemp partition`.
pub fn partition(args: PartitionArgs) -> anyhow::Result<()> {
    if !gemp::model::snapshot::is_snapshot(&args.model) {
        bail!(
            "{}: not a .gemp snapshot (make one with `gemp load … -o M.gemp`)",
            args.model.display()
        );
    }
    let source = gemp::io::partitions::file_checksum(&args.model)?;
    let model = gemp::model::snapshot::open(&args.model)?;
    let options = gemp::util::safe_write::WriteOptions::force(args.force);
    let manifest =
        gemp::io::partitions::write(&model, &source, args.parts, &args.output, &options)?;
    for f in &manifest.files {
        log::info!(
            "{}: {} owned nodes, {} edges, {} bytes",
            f.name,
            f.owned_nodes,
            f.edges,
            f.bytes
        );
    }
    log::info!(
        "{} parts of {} nodes and {} edges written to {} (set {})",
        manifest.parts,
        manifest.nodes,
        manifest.edges,
        args.output.display(),
        manifest.set_id
    );
    Ok(())
}

/// The cluster options of `gemp match`.
#[derive(Debug, Args, Default)]
pub struct ClusterMatchArgs {
    /// Run on a partition set (from `gemp partition`) instead of --model: with --cluster as one
    /// process of a cluster, else as one process with --threads workers.
    #[arg(long, value_name = "DIR")]
    pub parts: Option<PathBuf>,
    /// A file of `host:port` lines, one per process of the cluster (needs --parts and --process).
    #[arg(long, value_name = "HOSTFILE", requires_all = ["parts", "process"])]
    pub cluster: Option<PathBuf>,
    /// This process's index in the --cluster file (process 0 prints the result).
    #[arg(long, value_name = "I", requires = "cluster")]
    pub process: Option<usize>,
    /// Worker threads per process (with --parts).
    #[arg(long, value_name = "T", default_value_t = 1, requires = "parts")]
    pub threads: usize,
    /// An inherited socket already listening on this process's address (set by `gemp cluster
    /// run`, which binds every port before it starts any process).
    #[arg(long, value_name = "FD", requires = "cluster", hide = true)]
    pub listen_fd: Option<i32>,
    /// Seconds to wait for every process of the cluster to connect.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// Start vertices per worker and round (memory in flight is bounded by a round's matches).
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub batch: usize,
}

/// `gemp cluster …`.
#[derive(Debug, Args)]
pub struct ClusterArgs {
    #[command(subcommand)]
    command: ClusterCommand,
}

#[derive(Debug, Subcommand)]
enum ClusterCommand {
    /// Start N local processes of a cluster (free local ports) running one query; the options
    /// after the process count are `gemp match`'s (--parts DIR required).
    #[command(after_help = "Example:
  gemp cluster run --processes 2 --threads 1 --parts imdb-parts -c 'MATCH (a)-->(b) RETURN count(*)'")]
    Run(ClusterRunArgs),
}

/// Arguments of `gemp cluster run`.
#[derive(Debug, Args)]
struct ClusterRunArgs {
    /// Number of local processes.
    #[arg(long, value_name = "N")]
    processes: usize,
    /// Start each process through this program, given gemp's arguments (a wrapper that measures
    /// or pins it; `scripts/bench-cluster` uses one); default: this gemp.
    #[arg(long, value_name = "PROGRAM")]
    launcher: Option<PathBuf>,
    /// `gemp match` arguments (--parts DIR, the query, output options).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    rest: Vec<String>,
}

/// `gemp cluster`.
pub fn cluster(args: ClusterArgs) -> anyhow::Result<()> {
    match args.command {
        ClusterCommand::Run(a) => cluster_run(a),
    }
}

/// One listening socket on a free local port per process. On Linux each process inherits its
/// own (`--listen-fd`), so no other program can take a port between this choice and the
/// processes' start; elsewhere the sockets are closed before the processes bind their ports.
fn bind_local_ports(n: usize) -> anyhow::Result<Vec<std::net::TcpListener>> {
    (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<std::io::Result<Vec<_>>>()
        .context("finding free local ports")
}

/// Makes `command` pass `listener` on to the process it starts: the descriptor stays open across
/// `exec` in that child only, and its number goes on the command line as `--listen-fd`.
#[cfg(target_os = "linux")]
fn pass_listener(command: &mut std::process::Command, listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let fd = listener.as_raw_fd();
    command.arg("--listen-fd").arg(fd.to_string());
    // SAFETY: runs in the forked child before exec and calls only fcntl (async-signal-safe) on
    // a descriptor the parent holds open; it changes the child's descriptor table only.
    unsafe {
        command.pre_exec(move || {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// `gemp cluster run`: writes a host file of free local ports, starts the processes, and waits;
/// the first one that fails ends the others (exit status 1).
fn cluster_run(args: ClusterRunArgs) -> anyhow::Result<()> {
    if args.processes == 0 {
        bail!("--processes must be at least 1");
    }
    if !args
        .rest
        .iter()
        .any(|a| a == "--parts" || a.starts_with("--parts="))
    {
        bail!("gemp cluster run needs --parts DIR (a set from `gemp partition`)");
    }
    #[cfg_attr(target_os = "linux", allow(unused_mut))]
    let mut listeners = bind_local_ports(args.processes)?;
    let ports = listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<std::io::Result<Vec<u16>>>()
        .context("finding free local ports")?;
    // Without inheritance the processes bind the ports themselves (another program could take
    // one meanwhile, which then fails the run with a clear error).
    #[cfg(not(target_os = "linux"))]
    listeners.clear();
    let dir = tempfile_dir()?;
    let hostfile = dir.join("hosts");
    let text: String = ports.iter().map(|p| format!("127.0.0.1:{p}\n")).collect();
    std::fs::write(&hostfile, text).with_context(|| hostfile.display().to_string())?;
    let exe = match &args.launcher {
        Some(program) => program.clone(),
        None => std::env::current_exe().context("finding the gemp executable")?,
    };
    let mut children = Vec::new();
    for i in 0..args.processes {
        let mut cmd = std::process::Command::new(&exe);
        cmd.arg("match")
            .args(&args.rest)
            .arg("--cluster")
            .arg(&hostfile)
            .arg("--process")
            .arg(i.to_string());
        #[cfg(target_os = "linux")]
        if let Some(listener) = listeners.get(i) {
            pass_listener(&mut cmd, listener);
        }
        if i > 0 {
            cmd.stdout(std::process::Stdio::null());
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("starting process {i}"))?;
        log::info!("process {i}: pid {}", child.id());
        children.push(Some(child));
    }
    // Each process holds its own socket now.
    drop(listeners);
    let mut failed: Option<(usize, std::process::ExitStatus)> = None;
    let mut left = args.processes;
    while left > 0 {
        for (i, slot) in children.iter_mut().enumerate() {
            let Some(child) = slot else { continue };
            if let Some(status) = child.try_wait()? {
                *slot = None;
                left -= 1;
                if !status.success() && failed.is_none() {
                    failed = Some((i, status));
                }
            }
        }
        if failed.is_some() {
            // The others end on their own within their timeouts; stop them now.
            for child in children.iter_mut().flatten() {
                let _ = child.kill();
                let _ = child.wait();
            }
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Some((i, status)) = failed {
        bail!("cluster process {i} failed ({status}); the run is ended");
    }
    Ok(())
}

/// A fresh private directory for the host file.
fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let base = std::env::temp_dir();
    for n in 0..1000u32 {
        let dir = base.join(format!("gemp-cluster-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).context(dir.display().to_string()),
        }
    }
    bail!("could not make a temporary directory in {}", base.display())
}

/// Reads a host file: one `host:port` per line (blank lines and `#` comments skipped).
#[cfg(feature = "cluster")]
pub fn read_hosts(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let hosts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    for (i, h) in hosts.iter().enumerate() {
        if !h.contains(':') {
            bail!("{}: line {}: `{h}` is not host:port", path.display(), i + 1);
        }
    }
    if hosts.is_empty() {
        bail!("{}: no host:port lines", path.display());
    }
    Ok(hosts)
}

/// `gemp match --parts DIR …`: opens this process's parts, prepares the query against the
/// first, runs this process's share, and (process 0) prints the result in the chosen format.
#[cfg(feature = "cluster")]
pub fn match_on_cluster(args: &super::query::MatchArgs) -> anyhow::Result<super::Outcome> {
    use gemp::cluster;
    let c = &args.cluster_args;
    let Some(dir) = &c.parts else {
        bail!("--parts is required")
    };
    let hosts = match &c.cluster {
        Some(path) => read_hosts(path)?,
        None => Vec::new(),
    };
    let process = c.process.unwrap_or(0);
    let options = cluster::ClusterOptions {
        hosts,
        process,
        threads: c.threads.max(1),
        parts: dir.to_path_buf(),
        connect_timeout: Duration::from_secs_f64(c.connect_timeout.max(0.1)),
        listen_fd: c.listen_fd,
        timeout: args.timeout.map(|t| Duration::from_secs_f64(t.max(0.0))),
        batch: c.batch,
    };
    // This process's parts, opened once; the first of them binds the query (every part has the
    // whole model's schema and dictionaries).
    let loaded = cluster::Loaded::open(&options)?;
    let schema = loaded.schema()?;
    let schema: &gemp::model::Model = &schema;
    let params = super::query::parse_params(&args.common.params)?;
    let input = super::query::QueryInput::single(&args.query, &args.common)?;
    let (query, semantics) = super::query::load_query(&input, schema, &args.common, &params)?;
    let plan = cluster::DistPlan::new(&query, semantics)?;
    // timely prints connection progress on stdout: keep it off the result.
    log::info!(
        "process {process} of {}: {} worker thread(s), partition set {}",
        options.hosts.len().max(1),
        options.threads,
        dir.display()
    );
    let result = with_stdout_silenced(|| cluster::run(&query, semantics, &options, &loaded));
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            // Worker threads may still be blocked in timely: leave at once with status 1.
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let Some(gathered) = result.gathered else {
        return Ok(super::Outcome::Complete);
    };
    let finished = cluster::finish(&query, &plan, gathered, schema);
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    if args.count || (finished.counted && query.stages.is_empty()) {
        writeln!(w, "{}", finished.count)?;
    } else {
        super::output::write_rows(
            &mut w,
            schema,
            args.format,
            &finished.columns,
            &finished.rows,
        )?;
    }
    w.flush()?;
    Ok(super::Outcome::Complete)
}

/// Runs `f` with file descriptor 1 on `/dev/null` (timely prints its connection attempts with
/// `println!`; failures to connect are reported by the run's own error), then restores it.
#[cfg(feature = "cluster")]
fn with_stdout_silenced<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_os = "linux")]
    {
        let _ = std::io::stdout().flush();
        // SAFETY: dup/dup2 on the process's own standard descriptors; the saved one is
        // restored and closed below.
        let null = std::fs::OpenOptions::new().write(true).open("/dev/null");
        let saved = match &null {
            Ok(_) => unsafe { libc::dup(1) },
            Err(_) => -1,
        };
        if let (true, Ok(null)) = (saved >= 0, &null) {
            use std::os::fd::AsRawFd;
            unsafe { libc::dup2(null.as_raw_fd(), 1) };
        }
        let r = f();
        let _ = std::io::stdout().flush();
        if saved >= 0 {
            unsafe {
                libc::dup2(saved, 1);
                libc::close(saved);
            }
        }
        r
    }
    #[cfg(not(target_os = "linux"))]
    {
        f()
    }
}
