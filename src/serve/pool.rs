//! A bounded pool of connection workers. Threads start as connections need
//! them, up to a limit, and then wait for the next connection. When every
//! worker is busy and no new one can start (the limit is reached, or the
//! system refuses a thread), the connection is answered 503 on the spot and
//! the server keeps accepting: a spawn failure must never stop the server.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// At most this many connections are handled at once. Why 256: a preview
/// server sees a few browsers, each with a page, its assets and one event
/// stream; 256 leaves room for many, and bounds what a flood of slow
/// connections can take (each also ends at its deadline).
pub(super) const MAX_WORKERS: usize = 256;

/// Starts a thread running `job`; in tests, a stand-in that can fail.
pub(super) type Spawn = fn(Box<dyn FnOnce() + Send>) -> std::io::Result<()>;

/// Starts a real thread.
pub(super) fn spawn_thread(job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("agentx-http".into())
        .spawn(job)
        .map(drop)
}

type Handler = Arc<dyn Fn(TcpStream) + Send + Sync>;

pub(super) struct Pool {
    tx: Sender<TcpStream>,
    rx: Arc<Mutex<Receiver<TcpStream>>>,
    /// Workers started.
    live: AtomicUsize,
    /// Workers waiting for a connection, not reserved by one yet.
    idle: Arc<AtomicUsize>,
    max: usize,
    spawn: Spawn,
    handler: Handler,
}

impl Pool {
    pub(super) fn new(max: usize, spawn: Spawn, handler: Handler) -> Pool {
        let (tx, rx) = mpsc::channel();
        Pool {
            tx,
            rx: Arc::new(Mutex::new(rx)),
            live: AtomicUsize::new(0),
            idle: Arc::new(AtomicUsize::new(0)),
            max,
            spawn,
            handler,
        }
    }

    /// Hands `stream` to a free worker (starting one if allowed), or gives
    /// it back when there is none. Each queued stream has a worker reserved
    /// for it, so nothing waits behind a busy worker.
    pub(super) fn submit(&self, stream: TcpStream) -> Result<(), TcpStream> {
        let reserved = self
            .idle
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if !reserved && !self.start_worker() {
            return Err(stream);
        }
        self.tx.send(stream).map_err(|e| e.0)
    }

    /// Starts a worker that takes the next stream; false when the limit is
    /// reached or the thread cannot be started.
    fn start_worker(&self) -> bool {
        if self.live.fetch_add(1, Ordering::SeqCst) >= self.max {
            self.live.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        let (rx, idle, handler) = (
            Arc::clone(&self.rx),
            Arc::clone(&self.idle),
            Arc::clone(&self.handler),
        );
        let job = Box::new(move || {
            loop {
                let next = rx.lock().map(|r| r.recv());
                let Ok(Ok(stream)) = next else { return };
                handler(stream);
                idle.fetch_add(1, Ordering::SeqCst);
            }
        });
        if (self.spawn)(job).is_err() {
            self.live.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }
}

/// Accepts connections for ever, handing each to the pool or, when no
/// worker is free, to the one thread that answers 503. Accepting never
/// waits on a client.
pub(super) fn accept_loop(listener: &TcpListener, pool: &Pool) {
    let (busy_tx, busy_rx) = mpsc::sync_channel::<TcpStream>(64);
    let answers = std::thread::Builder::new()
        .name("agentx-busy".into())
        .spawn(move || {
            busy_rx
                .into_iter()
                .for_each(|s| busy(s, Duration::from_millis(200)))
        });
    for conn in listener.incoming() {
        match conn {
            Ok(stream) => {
                if let Err(stream) = pool.submit(stream) {
                    let unsent = match &answers {
                        Ok(_) => busy_tx.try_send(stream).err().map(|e| match e {
                            mpsc::TrySendError::Full(s) | mpsc::TrySendError::Disconnected(s) => s,
                        }),
                        Err(_) => Some(stream),
                    };
                    // No thread for answers, or too many waiting for one:
                    // answer without waiting for the request.
                    if let Some(stream) = unsent {
                        busy(stream, Duration::ZERO);
                    }
                }
            }
            // Out of file descriptors, or a connection reset before accept:
            // wait a little instead of spinning, then go on.
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Answers 503, reading what the client sends for at most `linger` so the
/// close does not reset the connection before the client reads the answer.
fn busy(mut stream: TcpStream, linger: Duration) {
    let body = "busy: too many connections; retry\n";
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    let _ = write!(
        stream,
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; \
         charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = std::time::Instant::now() + linger;
    let mut buf = [0u8; 4096];
    for _ in 0..16 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let set = if left.is_zero() {
            stream.set_nonblocking(true)
        } else {
            stream.set_read_timeout(Some(left))
        };
        if set.is_err() || !matches!(stream.read(&mut buf), Ok(n) if n > 0) {
            break;
        }
    }
}
