//! `cargo xtask bench-boards`: how fast `GET /api/boards` answers while the
//! server is asking serial ports who they are. Asking a port that stays
//! silent takes `IDENTIFY_WAIT` (4 s); the list must never wait for it.
//!
//! The ports are pseudo-terminals this process opens and keeps silent,
//! named to the server with `--serial`: 32 of them, asked four at a time,
//! keep it asking for about 32 s, and wrk reads the list for 20 s of that.

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::load::{Server, free_port, wait_for};
use crate::wrk::wrk_for;
use crate::{Project, cargo_host, run, setup, step};

const PORTS: usize = 32;
const SECONDS: u32 = 20;
const CONNECTIONS: u32 = 16;

pub fn boards(project: &Project) -> Result<()> {
    for (tool, package) in [("wrk", "wrk"), ("curl", "curl")] {
        if !setup::on_path(tool) {
            setup::apt_install(&[package])?;
        }
    }
    step("server, optimised");
    run(cargo_host(project).args(["build", "--release", "--package", "pqbench"]))?;
    let pqbench = project.target.join("release").join("pqbench");
    let dir = std::env::temp_dir().join(format!("pqbench-bench-boards-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("by-id"))?;

    // The master sides stay open here, silent, for the whole measurement.
    let ports: Vec<(OwnedFd, String)> = (0..PORTS).map(|_| silent_port()).collect::<Result<_>>()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut command = Command::new(&pqbench);
    command
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--db"])
        .arg(dir.join("boards.db"))
        .arg("--dist")
        .arg(project.dist())
        .arg("--serial-by-id")
        .arg(dir.join("by-id"))
        .arg("--no-system-ports")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (_, path) in &ports {
        command.args(["--serial", path]);
    }
    let mut server = Server(command.spawn().context("starting pqbench serve")?);
    wait_for(&base)?;
    let asking = |base: &str| -> Result<usize> {
        let out = Command::new("curl").args(["-sf", &format!("{base}/api/boards")]).output()?;
        let boards: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let notes = boards.as_array().context("a list of boards")?.iter();
        Ok(notes.filter(|b| b["note"].as_str().is_some_and(|n| n.starts_with("asking"))).count())
    };
    step(&format!("GET /api/boards for {SECONDS} s while {PORTS} silent ports are asked"));
    let before = asking(&base)?;
    let figures = wrk_for(&base, "/api/boards", CONNECTIONS, SECONDS)?;
    let after = asking(&base)?;
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    if before == 0 || after == 0 {
        bail!("the ports were not being asked throughout ({before} at the start, {after} at the end)");
    }
    println!(
        "Measured by `cargo xtask bench-boards`: wrk {SECONDS} s, 2 threads, {CONNECTIONS} connections, \
         while the server asked {PORTS} silent serial ports who they are ({before} being asked at the \
         start, {after} at the end).\n\n\
         | request | while | req/s | p50 | p99 | failed |\n| --- | --- | --- | --- | --- | --- |"
    );
    print!("{}", figures.row("`GET /api/boards`", "ports being asked"));
    Ok(())
}

/// A pseudo-terminal whose other end says nothing: its path, and the
/// master side that keeps it alive.
fn silent_port() -> Result<(OwnedFd, String)> {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors it opened; the optional name,
    // termios and window size are null.
    let opened = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    if opened != 0 {
        bail!("openpty: {}", std::io::Error::last_os_error());
    }
    // SAFETY: both were just opened for this process alone; CLOEXEC keeps
    // the server from inheriting (and so holding) either side.
    let (master, slave) = unsafe {
        libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::fcntl(slave, libc::F_SETFD, libc::FD_CLOEXEC);
        (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave))
    };
    let path = std::fs::read_link(format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&slave)))?;
    drop(slave);
    Ok((master, path.display().to_string()))
}
