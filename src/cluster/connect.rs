//! Connects the processes of a cluster before timely starts, silently and within a deadline.
//!
//! timely's own connection code retries forever and prints progress ("awaiting connections",
//! "error connecting …") to standard output, where it would mix with the query's rows. This
//! module makes the same connections timely's networking expects — process `i` connects to every
//! process `j < i` and sends its index as a big-endian `u64`; it accepts a connection from every
//! process `j > i` on its own address — and hands the sockets to timely
//! ([`timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets`]).
//!
//! Invariants: the result holds one entry per process, `None` at `my_index`, a connected blocking
//! stream everywhere else; a connection that announces an index outside `my_index + 1 .. n`, or
//! one already connected, is an error (it is not a process of this cluster); nothing is printed.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// How long to sleep between tries while waiting for a peer.
const RETRY: Duration = Duration::from_millis(50);

/// Opens a connection to every other process of `hosts` before `deadline` (see the module docs).
///
/// `listener`: this process's listening socket when it was bound before (`gemp cluster run` binds
/// every process's port before it starts any, and hands each its socket, so that no other
/// program can take a port in between); its port must be the one `hosts[my_index]` names.
/// `None`: the address `hosts[my_index]` is bound here.
pub fn connect_all(
    hosts: &[String],
    my_index: usize,
    listener: Option<TcpListener>,
    deadline: Instant,
) -> Result<Vec<Option<TcpStream>>> {
    let own = hosts
        .get(my_index)
        .ok_or_else(|| Error::Cluster(format!("process {my_index} is not in the host list")))?;
    let listener = match listener {
        Some(listener) => {
            let bound = listener
                .local_addr()
                .map_err(|e| Error::Cluster(format!("the listening socket for {own}: {e}")))?;
            if own.rsplit(':').next().and_then(|p| p.parse::<u16>().ok()) != Some(bound.port()) {
                return Err(Error::Cluster(format!(
                    "process {my_index}: the listening socket it was given is bound to {bound}, \
                     not to its address {own}"
                )));
            }
            listener
        }
        None => TcpListener::bind(own.as_str()).map_err(|e| {
            Error::Cluster(format!("process {my_index} cannot listen on {own}: {e}"))
        })?,
    };
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Cluster(format!("listening on {own}: {e}")))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    for (index, host) in hosts.iter().enumerate().take(my_index) {
        let mut stream = connect_until(host, deadline).map_err(|e| {
            Error::Cluster(format!(
                "process {my_index} could not connect to every process of {}: process {index} \
                 ({host}): {e}",
                hosts.join(", ")
            ))
        })?;
        stream
            .write_all(&(my_index as u64).to_be_bytes())
            .and_then(|_| stream.set_nodelay(true))
            .map_err(|e| Error::Cluster(format!("greeting process {index} ({host}): {e}")))?;
        sockets[index] = Some(stream);
    }
    let mut waiting = hosts.len() - my_index - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((mut stream, from)) => {
                let index = greeting(&mut stream, from, deadline)?;
                if index <= my_index || index >= hosts.len() || sockets[index].is_some() {
                    return Err(Error::Cluster(format!(
                        "process {my_index}: a connection from {from} announced itself as process \
                         {index}, which is not an expected process of this cluster of {}",
                        hosts.len()
                    )));
                }
                stream
                    .set_nodelay(true)
                    .map_err(|e| Error::Cluster(format!("connection from {from}: {e}")))?;
                sockets[index] = Some(stream);
                waiting -= 1;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (my_index + 1..hosts.len())
                        .filter(|&i| sockets[i].is_none())
                        .map(|i| format!("{i} ({})", hosts[i]))
                        .collect();
                    return Err(Error::Cluster(format!(
                        "process {my_index} could not connect to every process of {}: no \
                         connection from process {}",
                        hosts.join(", "),
                        missing.join(", ")
                    )));
                }
                std::thread::sleep(RETRY);
            }
            Err(e) => return Err(Error::Cluster(format!("accepting on {own}: {e}"))),
        }
    }
    Ok(sockets)
}

/// Connects to `host`, retrying until `deadline` (the peer may not be listening yet).
fn connect_until(host: &str, deadline: Instant) -> std::io::Result<TcpStream> {
    loop {
        let attempt = host.to_socket_addrs().and_then(|mut addrs| {
            let addr: SocketAddr = addrs.next().ok_or_else(|| {
                std::io::Error::new(ErrorKind::InvalidInput, "the address resolves to nothing")
            })?;
            let left = deadline.saturating_duration_since(Instant::now());
            TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(10)))
        });
        match attempt {
            Ok(stream) => return Ok(stream),
            Err(e) if e.kind() == ErrorKind::InvalidInput => return Err(e),
            Err(e) => {
                if Instant::now() >= deadline {
                    return Err(e);
                }
                std::thread::sleep(RETRY);
            }
        }
    }
}

/// Reads the index a connecting process announces, within `deadline` (and leaves `stream`
/// blocking, as timely expects).
fn greeting(stream: &mut TcpStream, from: SocketAddr, deadline: Instant) -> Result<usize> {
    let fail = |e: std::io::Error| {
        Error::Cluster(format!(
            "reading the greeting of the connection from {from}: {e}"
        ))
    };
    stream.set_nonblocking(false).map_err(fail)?;
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    stream.set_read_timeout(Some(left)).map_err(fail)?;
    let mut bytes = [0u8; 8];
    stream.read_exact(&mut bytes).map_err(fail)?;
    stream.set_read_timeout(None).map_err(fail)?;
    Ok(u64::from_be_bytes(bytes).min(usize::MAX as u64) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` bound listeners and their addresses (kept bound, so that no other test takes a port).
    fn bound(n: usize) -> (Vec<String>, Vec<TcpListener>) {
        let listeners: Vec<TcpListener> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let hosts = listeners
            .iter()
            .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
            .collect();
        (hosts, listeners)
    }

    #[test]
    fn three_processes_connect_to_each_other() {
        let (hosts, listeners) = bound(3);
        let deadline = Instant::now() + Duration::from_secs(10);
        let handles: Vec<_> = listeners
            .into_iter()
            .enumerate()
            .map(|(i, listener)| {
                let hosts = hosts.clone();
                std::thread::spawn(move || connect_all(&hosts, i, Some(listener), deadline))
            })
            .collect();
        for (i, h) in handles.into_iter().enumerate() {
            let sockets = h.join().unwrap().unwrap();
            assert_eq!(sockets.len(), 3);
            for (j, s) in sockets.iter().enumerate() {
                assert_eq!(s.is_none(), i == j, "process {i}, socket {j}");
            }
        }
    }

    #[test]
    fn a_missing_process_is_an_error_at_the_deadline() {
        let (hosts, mut listeners) = bound(2);
        let started = Instant::now();
        let second = listeners.pop();
        let first = listeners.pop();
        let err = connect_all(
            &hosts,
            0,
            first,
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("could not connect to every process"), "{err}");
        assert!(err.contains("no connection from process 1"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        // Process 0's socket is closed now: nobody listens there.
        let err = connect_all(
            &hosts,
            1,
            second,
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("process 0"), "{err}");
    }

    #[test]
    fn a_listener_on_another_port_is_refused() {
        let (hosts, mut listeners) = bound(2);
        let err = connect_all(&hosts, 0, listeners.pop(), Instant::now())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not to its address"), "{err}");
    }

    #[test]
    fn a_stranger_announcing_a_wrong_index_is_refused() {
        let (hosts, mut listeners) = bound(2);
        let own = listeners.swap_remove(0);
        let target = hosts[0].clone();
        let stranger = std::thread::spawn(move || loop {
            if let Ok(mut s) = TcpStream::connect(target.as_str()) {
                let _ = s.write_all(&7u64.to_be_bytes());
                std::thread::sleep(Duration::from_millis(200));
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        });
        let err = connect_all(
            &hosts,
            0,
            Some(own),
            Instant::now() + Duration::from_secs(5),
        )
        .unwrap_err()
        .to_string();
        stranger.join().unwrap();
        assert!(err.contains("announced itself as process 7"), "{err}");
    }
}
