//! A local Mosquitto for the demo, the load test and the tests: started as a real
//! process on a free port with a configuration of its own (no system service), and
//! stopped (or killed, to test faults) and started again on the same port.
//!
//! Shell: a child process.

use anyhow::Context;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A Mosquitto broker we started.
pub struct LocalBroker {
    pub port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

/// Where Debian puts Mosquitto (it is not on a normal user's PATH).
fn mosquitto_binary() -> PathBuf {
    for p in [
        "/usr/sbin/mosquitto",
        "/usr/bin/mosquitto",
        "/usr/local/sbin/mosquitto",
    ] {
        if Path::new(p).exists() {
            return p.into();
        }
    }
    "mosquitto".into()
}

/// A TCP port nobody listens on now.
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

impl LocalBroker {
    /// Start Mosquitto on `port` (a free one when `None`), its files in `dir`.
    pub fn start(dir: &Path, port: Option<u16>) -> anyhow::Result<LocalBroker> {
        std::fs::create_dir_all(dir)?;
        let port = match port {
            Some(p) => p,
            None => free_port()?,
        };
        let mut b = LocalBroker {
            port,
            dir: dir.to_path_buf(),
            child: None,
        };
        b.restart()?;
        Ok(b)
    }

    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// (Re)start the broker on its port and wait until it accepts connections.
    pub fn restart(&mut self) -> anyhow::Result<()> {
        let conf = self.dir.join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!(
                "# Written by yutstation for a local tournament broker.\n\
                 listener {} 127.0.0.1\n\
                 allow_anonymous true\n\
                 persistence false\n\
                 max_queued_messages 100000\n\
                 log_dest file {}\n",
                self.port,
                self.dir.join("mosquitto.log").display()
            ),
        )?;
        let child = Command::new(mosquitto_binary())
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start mosquitto: install it (scripts/setup.sh installs Debian's `mosquitto`)")?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(|c| c.try_wait()) {
                anyhow::bail!(
                    "mosquitto exited ({status}) on port {}: see {}",
                    self.port,
                    self.dir.join("mosquitto.log").display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        anyhow::bail!("mosquitto did not listen on port {} within 10 s", self.port)
    }

    /// Kill the broker with SIGKILL (a crash: no goodbye to anyone).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The broker's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }
}

impl Drop for LocalBroker {
    fn drop(&mut self) {
        self.kill();
    }
}
