//! fio's `net` and `netsplice` engines: the job's I/O goes over one socket (TCP, UDP or a Unix
//! stream socket) instead of a file. Reads receive, writes send; offsets mean nothing.
//!
//! As fio's `engines/net.c` does it:
//! - A listener (`listen`, and every UDP or Unix reader) binds (TCP/UDP: any address, the port;
//!   Unix: the path, removed first) and, for streams, accepts one connection while the engine is
//!   built; a UDP reader then waits for the sender's link-open datagram. A sender connects (UDP:
//!   sends the link-open datagram, magic and command big-endian).
//! - A send is repeated until the whole block is sent (`MSG_MORE` on streams while more of the
//!   job's bytes are to come, without `pingpong`); a receive until the whole block arrived or the
//!   peer ended the stream. A UDP datagram is one I/O. Each UDP datagram of a sender carries, in
//!   its last 24 bytes, fio's sequence record (magic, block size, number, little-endian) so the
//!   receiver counts the datagrams lost (without verification, as fio).
//! - `pingpong`: each block received is sent back, each block sent waits for its echo.
//! - When the engine is dropped it sends fio's 8-byte link-close message to the peer (every
//!   protocol, as fio does); a receiver that gets exactly that message, or the end of the
//!   stream, is [`Engine::finished`].
//! - `netsplice` moves the bytes through a pipe with `splice(2)` on TCP (a write goes to the
//!   pipe, then is spliced to the socket; a receive is spliced from the socket to the pipe, then
//!   read); UDP and Unix sockets use plain sends and receives, as in fio.
//! - Waits (accept, link open, a full socket) poll in steps of 100 ms and give up when the
//!   options' stop flag is raised (the run is terminated).

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6, ToSocketAddrs};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketAddrAny, SocketAddrUnix, SocketType, sockopt};

use super::{Common, Completion, Ddir, Engine, EngineConfig, EngineError, Io, Queued, check_len};
use crate::sys;
use crate::sys::buf::SlotBuffers;

/// fio's link open/close message: magic, then command.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
const LINK_CLOSE: u32 = 0x89;
/// fio's UDP sequence record: magic, block size, sequence number (little-endian u64s).
const UDP_SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
const UDP_SEQ_LEN: usize = 24;

/// The transport of a `net` engine (fio's `protocol=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NetProto {
    /// TCP over IPv4.
    #[default]
    Tcp,
    /// TCP over IPv6.
    TcpV6,
    /// UDP over IPv4.
    Udp,
    /// UDP over IPv6.
    UdpV6,
    /// A Unix stream socket, named by a path.
    Unix,
}

impl NetProto {
    /// A datagram protocol.
    pub fn is_udp(self) -> bool {
        matches!(self, NetProto::Udp | NetProto::UdpV6)
    }

    /// TCP, over either IP version.
    pub fn is_tcp(self) -> bool {
        matches!(self, NetProto::Tcp | NetProto::TcpV6)
    }

    fn is_v6(self) -> bool {
        matches!(self, NetProto::TcpV6 | NetProto::UdpV6)
    }
}

/// A flag another thread raises to make a waiting engine give up (the run is terminated).
/// Two flags are equal when they are the same flag.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(pub Arc<AtomicBool>);

impl StopFlag {
    fn raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl PartialEq for StopFlag {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for StopFlag {}

/// Settings of the `net` and `netsplice` engines, as the job resolved them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetOptions {
    /// The transport.
    pub proto: NetProto,
    /// TCP/UDP: the host to connect to (a name or an address), or for a UDP listener the
    /// multicast group to join; Unix: the socket's path. `None`: no host (a TCP listener).
    pub host: Option<String>,
    /// TCP/UDP port (fio adds the clone's number).
    pub port: u16,
    /// Bind and wait for the peer rather than connect (resolved: UDP and Unix readers listen).
    pub listen: bool,
    /// The job writes (sends); otherwise it reads (receives).
    pub writes: bool,
    /// Echo every block: a receiver sends it back, a sender waits for it.
    pub pingpong: bool,
    /// `TCP_NODELAY`.
    pub nodelay: bool,
    /// `SO_RCVBUF` (receiving side) and `SO_SNDBUF` (sending side), bytes; 0: the system's.
    pub window_size: u32,
    /// `TCP_MAXSEG` (TCP only); 0: the system's.
    pub mss: u32,
    /// Multicast: the local interface's address (`IP_MULTICAST_IF`, or the membership's).
    pub interface: Option<Ipv4Addr>,
    /// Multicast: `IP_MULTICAST_TTL` of a sender.
    pub ttl: u32,
    /// `netsplice`: move TCP data through a pipe with `splice(2)`.
    pub splice: bool,
    /// The job's bytes: a TCP send says `MSG_MORE` while more are to come.
    pub total_bytes: u64,
    /// UDP: stamp and check fio's sequence record (off when the job verifies its data).
    pub udp_seq: bool,
    /// Raised when the run is terminated: waits give up.
    pub stop: StopFlag,
}

/// The address of `host` for `proto` (an address literal, or the first of the name's
/// addresses of the protocol's family).
fn resolve(host: &str, port: u16, v6: bool) -> io::Result<SocketAddr> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    (host, port)
        .to_socket_addrs()?
        .find(|a| a.is_ipv6() == v6)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address of that family"))
}

/// fio's multicast range: 224.0.0.0 to 239.255.255.255.
fn multicast(host: Option<&str>) -> Option<Ipv4Addr> {
    host.and_then(|h| h.parse::<Ipv4Addr>().ok()).filter(Ipv4Addr::is_multicast)
}

/// The peer of a datagram socket.
#[derive(Debug, Clone)]
enum Peer {
    None,
    V4(SocketAddrV4),
    V6(SocketAddrV6),
}

/// A `net` or `netsplice` engine over one socket.
pub(crate) struct NetEngine {
    name: &'static str,
    o: NetOptions,
    /// The data socket (accepted, connected, or the UDP socket).
    sock: Option<OwnedFd>,
    /// Where a UDP sender sends (and a UDP listener answers a ping).
    peer: Peer,
    /// `netsplice`: the pipe (read end, write end).
    pipe: Option<(OwnedFd, OwnedFd)>,
    bufs: SlotBuffers,
    sent: u64,
    send_seq: u64,
    recv_seq: u64,
    seq_off: bool,
    dropped: u64,
    finished: bool,
}

fn setup_err(engine: &'static str, what: &'static str) -> impl Fn(io::Error) -> EngineError {
    move |source| EngineError::Net { engine, what, source }
}

impl NetEngine {
    pub fn new(o: NetOptions, mut config: EngineConfig) -> Result<NetEngine, EngineError> {
        let name = if o.splice { "netsplice" } else { "net" };
        let bad = |why: String| EngineError::Option { engine: name, why };
        if o.proto == NetProto::Unix && o.host.is_none() {
            return Err(bad("UNIX sockets need host/filename".into()));
        }
        if o.proto != NetProto::Unix && o.port == 0 {
            return Err(bad("network IO requires port for tcp or udp".into()));
        }
        let common = Common::new(name, &mut config)?;
        let pipe =
            if o.splice { Some(rustix::pipe::pipe().map_err(|e| setup_err(name, "pipe")(e.into()))?) } else { None };
        let mut e = NetEngine {
            name,
            o,
            sock: None,
            peer: Peer::None,
            pipe,
            bufs: common.bufs,
            sent: 0,
            send_seq: 0,
            recv_seq: 0,
            seq_off: false,
            dropped: 0,
            finished: false,
        };
        if e.o.listen {
            e.listen()?
        } else {
            e.connect()?
        }
        Ok(e)
    }

    fn family(&self) -> AddressFamily {
        match self.o.proto {
            NetProto::Unix => AddressFamily::UNIX,
            p if p.is_v6() => AddressFamily::INET6,
            _ => AddressFamily::INET,
        }
    }

    fn socket(&self) -> Result<OwnedFd, EngineError> {
        let kind = if self.o.proto.is_udp() { SocketType::DGRAM } else { SocketType::STREAM };
        rustix::net::socket(self.family(), kind, None).map_err(|e| setup_err(self.name, "socket")(e.into()))
    }

    /// fio's `set_window_size` and `set_mss`.
    fn tune(&self, fd: BorrowedFd<'_>) -> Result<(), EngineError> {
        let o = &self.o;
        if o.window_size > 0 {
            let size = o.window_size as usize;
            if o.listen || o.pingpong {
                sockopt::set_socket_recv_buffer_size(fd, size)
                    .map_err(|e| setup_err(self.name, "rcvbuf window size")(e.into()))?;
            }
            if !o.listen || o.pingpong {
                sockopt::set_socket_send_buffer_size(fd, size)
                    .map_err(|e| setup_err(self.name, "sndbuf window size")(e.into()))?;
            }
        }
        if o.mss > 0 && o.proto.is_tcp() {
            sys::net::set_tcp_maxseg(fd, o.mss).map_err(setup_err(self.name, "setsockopt TCP_MAXSEG"))?;
        }
        Ok(())
    }

    fn nodelay(&self, fd: BorrowedFd<'_>) -> Result<(), EngineError> {
        if self.o.nodelay && self.o.proto.is_tcp() {
            sockopt::set_tcp_nodelay(fd, true).map_err(|e| setup_err(self.name, "setsockopt TCP_NODELAY")(e.into()))?;
        }
        Ok(())
    }

    /// Wait until `fd` is ready for `events`, in steps of 100 ms; `false` when stopped.
    fn wait(&self, fd: BorrowedFd<'_>, events: PollFlags) -> io::Result<bool> {
        let step = Timespec { tv_sec: 0, tv_nsec: 100_000_000 };
        loop {
            if self.o.stop.raised() {
                return Ok(false);
            }
            let mut pfd = [PollFd::from_borrowed_fd(fd, events)];
            match poll(&mut pfd, Some(&step)) {
                Ok(0) => continue,
                Ok(_) => return Ok(true),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn interrupted() -> io::Error {
        io::Error::from_raw_os_error(libc::EINTR)
    }

    /// fio's `fio_netio_setup_listen` and `fio_netio_accept` (and a UDP reader's wait for the
    /// link-open message).
    fn listen(&mut self) -> Result<(), EngineError> {
        let name = self.name;
        let fd = self.socket()?;
        match self.o.proto {
            NetProto::Unix => {
                let path = self.o.host.clone().unwrap_or_default();
                let _ = std::fs::remove_file(&path);
                let addr = SocketAddrUnix::new(path.as_str()).map_err(|e| setup_err(name, "bind")(e.into()))?;
                rustix::net::bind(&fd, &addr).map_err(|e| setup_err(name, "bind")(e.into()))?;
            }
            proto => {
                sockopt::set_socket_reuseaddr(&fd, true).map_err(|e| setup_err(name, "setsockopt")(e.into()))?;
                sockopt::set_socket_reuseport(&fd, true).map_err(|e| setup_err(name, "setsockopt")(e.into()))?;
                self.tune(fd.as_fd())?;
                let group = multicast(self.o.host.as_deref()).filter(|_| proto == NetProto::Udp);
                if let Some(g) = group {
                    let ifc = self.o.interface.unwrap_or(Ipv4Addr::UNSPECIFIED);
                    sockopt::set_ip_add_membership(&fd, &g, &ifc)
                        .map_err(|e| setup_err(name, "setsockopt IP_ADD_MEMBERSHIP")(e.into()))?;
                }
                let r = if proto.is_v6() {
                    rustix::net::bind(&fd, &SocketAddrV6::new(Ipv6Addr::UNSPECIFIED, self.o.port, 0, 0))
                } else {
                    rustix::net::bind(&fd, &SocketAddrV4::new(group.unwrap_or(Ipv4Addr::UNSPECIFIED), self.o.port))
                };
                r.map_err(|e| setup_err(name, "bind")(e.into()))?;
            }
        }
        if self.o.proto.is_udp() {
            // fio_netio_udp_recv_open: the sender's link-open message starts the job.
            let mut msg = [0u8; 8];
            if !self.wait(fd.as_fd(), PollFlags::IN).map_err(setup_err(name, "recvfrom udp link open"))? {
                return Err(setup_err(name, "recvfrom udp link open")(Self::interrupted()));
            }
            let (_, n, from) = rustix::net::recvfrom(&fd, &mut msg, RecvFlags::DONTWAIT)
                .map_err(|e| setup_err(name, "recvfrom udp link open")(e.into()))?;
            let magic = u32::from_be_bytes(msg[..4].try_into().unwrap_or_default());
            let cmd = u32::from_be_bytes(msg[4..].try_into().unwrap_or_default());
            if n != 8 || magic != LINK_MAGIC || cmd != LINK_OPEN {
                return Err(EngineError::Option { engine: name, why: format!("bad udp open magic {magic:x}/{cmd:x}") });
            }
            self.peer = peer_of(from);
            self.sock = Some(fd);
            return Ok(());
        }
        rustix::net::listen(&fd, 10).map_err(|e| setup_err(name, "listen")(e.into()))?;
        if !self.wait(fd.as_fd(), PollFlags::IN).map_err(setup_err(name, "poll"))? {
            return Err(setup_err(name, "accept")(Self::interrupted()));
        }
        let conn = rustix::net::accept(&fd).map_err(|e| setup_err(name, "accept")(e.into()))?;
        self.nodelay(conn.as_fd())?;
        self.sock = Some(conn);
        Ok(())
    }

    /// fio's `fio_netio_setup_connect` and `fio_netio_connect` (and a UDP sender's link-open
    /// message).
    fn connect(&mut self) -> Result<(), EngineError> {
        let name = self.name;
        let fd = self.socket()?;
        self.nodelay(fd.as_fd())?;
        self.tune(fd.as_fd())?;
        let host = self.o.host.clone().unwrap_or_default();
        if self.o.proto == NetProto::Unix {
            let addr = SocketAddrUnix::new(host.as_str()).map_err(|e| setup_err(name, "connect")(e.into()))?;
            rustix::net::connect(&fd, &addr).map_err(|e| setup_err(name, "connect")(e.into()))?;
            self.sock = Some(fd);
            return Ok(());
        }
        let addr = resolve(&host, self.o.port, self.o.proto.is_v6()).map_err(setup_err(name, "getaddrinfo"))?;
        if self.o.proto.is_udp() {
            if let Some(_group) = multicast(Some(&host)).filter(|_| self.o.proto == NetProto::Udp) {
                if let Some(ifc) = self.o.interface {
                    sockopt::set_ip_multicast_if(&fd, &ifc)
                        .map_err(|e| setup_err(name, "setsockopt IP_MULTICAST_IF")(e.into()))?;
                }
                sockopt::set_ip_multicast_ttl(&fd, self.o.ttl)
                    .map_err(|e| setup_err(name, "setsockopt IP_MULTICAST_TTL")(e.into()))?;
            }
            self.peer = match addr {
                SocketAddr::V4(a) => Peer::V4(a),
                SocketAddr::V6(a) => Peer::V6(a),
            };
            self.sock = Some(fd);
            if self.o.writes {
                let mut msg = [0u8; 8];
                msg[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
                msg[4..].copy_from_slice(&LINK_OPEN.to_be_bytes());
                self.send_to(&msg).map_err(setup_err(name, "sendto udp link open"))?;
            }
            return Ok(());
        }
        rustix::net::connect(&fd, &addr).map_err(|e| setup_err(name, "connect")(e.into()))?;
        self.sock = Some(fd);
        Ok(())
    }

    fn fd(&self) -> BorrowedFd<'_> {
        self.sock.as_ref().expect("the engine has its socket").as_fd()
    }

    fn send_to(&self, buf: &[u8]) -> io::Result<usize> {
        let flags = SendFlags::NOSIGNAL;
        let fd = self.fd();
        Ok(match &self.peer {
            Peer::V4(a) => rustix::net::sendto(fd, buf, flags, a)?,
            Peer::V6(a) => rustix::net::sendto(fd, buf, flags, a)?,
            Peer::None => rustix::net::send(fd, buf, flags)?,
        })
    }

    /// Send all of slot `tag`'s first `len` bytes: the bytes sent, or the error.
    fn send_block(&mut self, tag: u32, len: usize) -> io::Result<usize> {
        let udp = self.o.proto.is_udp();
        if udp && self.o.udp_seq && len >= UDP_SEQ_LEN {
            let seq = self.send_seq;
            self.send_seq += 1;
            let buf = &mut self.bufs.get_mut(tag as usize).expect("checked slot")[..len];
            let rec = &mut buf[len - UDP_SEQ_LEN..];
            rec[..8].copy_from_slice(&UDP_SEQ_MAGIC.to_le_bytes());
            rec[8..16].copy_from_slice(&(len as u64).to_le_bytes());
            rec[16..].copy_from_slice(&seq.to_le_bytes());
        }
        let mut done = 0;
        while done < len {
            let more = !udp
                && !self.o.pingpong
                && self.sent + (len as u64) < self.o.total_bytes
                && self.o.proto != NetProto::Unix;
            let r = {
                let buf = &self.bufs.get(tag as usize).expect("checked slot")[done..len];
                if udp {
                    self.send_to(buf)
                } else if let Some((rd, wr)) = self.pipe.as_ref().filter(|_| self.o.proto.is_tcp()) {
                    splice_out(rd, wr, self.sock.as_ref().expect("socket"), buf)
                } else {
                    let flags = if more { SendFlags::NOSIGNAL | SendFlags::MORE } else { SendFlags::NOSIGNAL };
                    rustix::net::send(self.fd(), buf, flags | SendFlags::DONTWAIT).map_err(io::Error::from)
                }
            };
            match r {
                Ok(n) if n > 0 => {
                    done += n;
                    if udp {
                        break;
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() != io::ErrorKind::WouldBlock => return Err(e),
                Err(_) => {}
            }
            if done < len && !self.wait(self.fd(), PollFlags::OUT)? {
                return Err(Self::interrupted());
            }
        }
        self.sent += done as u64;
        Ok(done)
    }

    /// Receive up to `len` bytes into slot `tag`: a whole block (a stream), one datagram, or
    /// what came before the peer ended the stream (then `finished`).
    fn recv_block(&mut self, tag: u32, len: usize) -> io::Result<usize> {
        let udp = self.o.proto.is_udp();
        let mut done = 0;
        while done < len {
            let r: io::Result<(usize, Option<SocketAddrAny>)> = {
                let fd = self.sock.as_ref().expect("socket");
                let buf = &mut self.bufs.get_mut(tag as usize).expect("checked slot")[done..len];
                if udp {
                    rustix::net::recvfrom(fd, buf, RecvFlags::DONTWAIT)
                        .map(|(_, n, from)| (n, from))
                        .map_err(Into::into)
                } else if let Some((rd, wr)) = self.pipe.as_ref().filter(|_| self.o.proto.is_tcp()) {
                    splice_in(fd, rd, wr, buf).map(|n| (n, None))
                } else {
                    rustix::net::recv(fd, buf, RecvFlags::DONTWAIT).map(|(_, n)| (n, None)).map_err(Into::into)
                }
            };
            match r {
                Ok((n, from)) => {
                    if done == 0 && self.is_close_msg(tag, n) {
                        self.finished = true;
                        return Ok(0);
                    }
                    if n == 0 && !udp {
                        self.finished = true;
                        return Ok(done);
                    }
                    done += n;
                    if udp {
                        if self.o.listen && from.is_some() {
                            self.peer = peer_of(from);
                        }
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            if done < len && !self.wait(self.fd(), PollFlags::IN)? {
                return Err(Self::interrupted());
            }
        }
        if udp && self.o.udp_seq {
            self.check_seq(tag, done);
        }
        Ok(done)
    }

    fn is_close_msg(&mut self, tag: u32, n: usize) -> bool {
        if n != 8 {
            return false;
        }
        let buf = &self.bufs.get_mut(tag as usize).expect("checked slot")[..8];
        let magic = u32::from_le_bytes(buf[..4].try_into().unwrap_or_default());
        let cmd = u32::from_le_bytes(buf[4..].try_into().unwrap_or_default());
        magic == LINK_MAGIC && cmd == LINK_CLOSE
    }

    /// fio's `verify_udp_seq`: count the datagrams lost since the last one.
    fn check_seq(&mut self, tag: u32, len: usize) {
        if len < UDP_SEQ_LEN || self.seq_off {
            return;
        }
        let buf = &self.bufs.get_mut(tag as usize).expect("checked slot")[..len];
        let rec = &buf[len - UDP_SEQ_LEN..];
        let word = |i: usize| u64::from_le_bytes(rec[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        if word(0) != UDP_SEQ_MAGIC {
            return;
        }
        if word(1) != len as u64 {
            self.seq_off = true;
            return;
        }
        let seq = word(2);
        if seq != self.recv_seq {
            self.dropped += seq.wrapping_sub(self.recv_seq);
        }
        self.recv_seq = seq + 1;
    }

    fn transfer(&mut self, io: &Io) -> i32 {
        if let Err(e) = check_len(&self.bufs, io) {
            return e;
        }
        let len = io.len as usize;
        let first = if io.ddir == Ddir::Write { self.send_block(io.tag, len) } else { self.recv_block(io.tag, len) };
        let r = match first {
            Ok(n) if n == len && self.o.pingpong => {
                if io.ddir == Ddir::Read {
                    self.send_block(io.tag, len)
                } else {
                    self.recv_block(io.tag, len)
                }
            }
            other => other,
        };
        match r {
            Ok(n) => n as i32,
            Err(e) => sys::neg_errno(&e),
        }
    }
}

fn peer_of(from: Option<SocketAddrAny>) -> Peer {
    match from.and_then(|a| SocketAddr::try_from(a).ok()) {
        Some(SocketAddr::V4(a)) => Peer::V4(a),
        Some(SocketAddr::V6(a)) => Peer::V6(a),
        None => Peer::None,
    }
}

/// `netsplice` send: the block into the pipe, then spliced from the pipe to the socket, in
/// pieces the pipe holds.
fn splice_out(rd: &OwnedFd, wr: &OwnedFd, sock: &OwnedFd, buf: &[u8]) -> io::Result<usize> {
    let piece = buf.len().min(65536);
    let n = rustix::io::write(wr, &buf[..piece])?;
    let mut left = n;
    while left > 0 {
        let m = rustix::pipe::splice(rd, None, sock, None, left, rustix::pipe::SpliceFlags::MORE)?;
        if m == 0 {
            return Err(io::Error::from_raw_os_error(libc::EPIPE));
        }
        left -= m;
    }
    Ok(n)
}

/// `netsplice` receive: what the socket has (at most `buf`'s length) spliced into the pipe,
/// then read from it; 0 at the end of the stream, `EAGAIN` when nothing is there yet.
fn splice_in(sock: &OwnedFd, rd: &OwnedFd, wr: &OwnedFd, buf: &mut [u8]) -> io::Result<usize> {
    let piece = buf.len().min(65536);
    let n = rustix::pipe::splice(sock, None, wr, None, piece, rustix::pipe::SpliceFlags::NONBLOCK)?;
    let mut got = 0;
    while got < n {
        got += rustix::io::read(rd, &mut buf[got..n])?;
    }
    Ok(n)
}

impl Drop for NetEngine {
    fn drop(&mut self) {
        // fio_netio_send_close: tell the peer the link is closing (every protocol).
        if self.sock.is_some() {
            let mut msg = [0u8; 8];
            msg[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
            msg[4..].copy_from_slice(&LINK_CLOSE.to_le_bytes());
            let _ = self.send_to(&msg);
        }
    }
}

impl Engine for NetEngine {
    fn name(&self) -> &'static str {
        self.name
    }

    fn is_sync(&self) -> bool {
        true
    }

    fn buffer(&mut self, tag: u32) -> &mut [u8] {
        self.bufs.get_mut(tag as usize).expect("slot out of range")
    }

    fn queue(&mut self, io: &Io) -> Queued {
        Queued::Completed(match io.ddir {
            Ddir::Read | Ddir::Write => self.transfer(io),
            // fio's net engine completes anything else (a sync) doing nothing.
            _ => 0,
        })
    }

    fn commit(&mut self) -> io::Result<usize> {
        Ok(0)
    }

    fn getevents(&mut self, _min: usize, _max: usize, _out: &mut Vec<Completion>) -> io::Result<usize> {
        Ok(0)
    }

    fn finished(&self) -> bool {
        self.finished
    }

    fn dropped(&self) -> u64 {
        self.dropped
    }
}
