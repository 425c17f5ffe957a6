//! Socket options that rustix has no wrapper for, one safe function each, named after the option.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// `setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, mss)`: the TCP maximum segment size.
pub fn set_tcp_maxseg(fd: BorrowedFd<'_>, mss: u32) -> io::Result<()> {
    let value = libc::c_int::try_from(mss).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: TCP_MAXSEG reads one `int` through the pointer, of the length passed; `value`
    // lives for the call and `fd` is borrowed for it.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            (&raw const value).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn maxseg_is_set_on_a_tcp_socket_and_refused_elsewhere() {
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        set_tcp_maxseg(tcp.as_fd(), 1000).unwrap();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert!(set_tcp_maxseg(udp.as_fd(), 1000).is_err());
        assert_eq!(set_tcp_maxseg(tcp.as_fd(), u32::MAX).unwrap_err().raw_os_error(), Some(libc::EINVAL));
    }
}
