//! `UCred`: the credentials of a Unix stream's peer, as the kernel recorded them when the
//! connection was made (`SO_PEERCRED`), not as they are now.

use std::io;
use std::os::fd::AsRawFd;

/// The peer's credentials (tokio's `net::unix::UCred`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UCred {
    pid: Option<libc::pid_t>,
    uid: libc::uid_t,
    gid: libc::gid_t,
}

impl UCred {
    /// The peer's effective user id.
    pub fn uid(&self) -> libc::uid_t {
        self.uid
    }

    /// The peer's effective group id.
    pub fn gid(&self) -> libc::gid_t {
        self.gid
    }

    /// The peer's process id (always known on Linux).
    pub fn pid(&self) -> Option<libc::pid_t> {
        self.pid
    }
}

/// `SO_PEERCRED` of a connected Unix socket.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn peer_cred(sock: &impl AsRawFd) -> io::Result<UCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are live, `len` holds `cred`'s size, as SO_PEERCRED wants.
    let ret = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if ret != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(UCred {
        pid: Some(cred.pid),
        uid: cred.uid,
        gid: cred.gid,
    })
}
