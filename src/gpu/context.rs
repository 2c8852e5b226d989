//! [`Gpu`]: one device's context and queue, buffers, program build cache and kernel launches.

use std::collections::HashMap;
use std::ffi::CString;
use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ocl::builders::KernelBuilder;
use ocl::core::{self, ProgramBuildInfo};
use ocl::enums::{KernelWorkGroupInfo, KernelWorkGroupInfoResult, ProfilingInfo};
use ocl::flags::{CommandQueueProperties, MemFlags};
use ocl::{Buffer, Context, Device, Event, Kernel, OclPrm, Platform, Program, Queue};

use super::args::KernelArgs;
use super::device::{select_device, DeviceInfo, DeviceSelector, GEMP_DEVICE_ENV};
use super::discovery;
use super::sizing;
use crate::error::{Error, Result};
use crate::util::human_bytes;

/// Compiler option every program is built with (the crate targets OpenCL 1.2, see GEMP §4).
const CL_STD: &str = "-cl-std=CL1.2";

/// An open OpenCL device: platform, device, context and one in-order command queue with profiling
/// enabled, plus a cache of built programs.
///
/// Every method returns [`Error::OpenCl`] (with what was being done) instead of panicking; calls
/// into the `ocl` wrapper are additionally guarded with `catch_unwind`, because it panics on some
/// driver answers (unknown status codes). `Gpu` is `Send + Sync`: the queue is in-order and
/// OpenCL 1.2 objects are thread-safe except `clSetKernelArg` on a shared kernel, which this type
/// never shares (each [`Gpu::kernel`] call creates its own kernel object).
#[derive(Debug)]
pub struct Gpu {
    platform: Platform,
    device: Device,
    context: Context,
    queue: Queue,
    info: DeviceInfo,
    programs: Mutex<HashMap<ProgramKey, Arc<Program>>>,
}

/// Program cache key: name, extra options and a hash of the sources (so a name reused with other
/// sources does not return a stale program).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ProgramKey {
    name: String,
    options: String,
    sources_hash: u64,
}

/// A device buffer that remembers its logical length and name.
///
/// OpenCL forbids zero-sized buffers, so an empty `DeviceBuffer` holds one (zeroed) element on the
/// device while [`len`](DeviceBuffer::len) says 0; [`Gpu::read`] of it returns an empty vector.
/// Pass [`buffer`](DeviceBuffer::buffer) as a kernel argument.
#[derive(Debug, Clone)]
pub struct DeviceBuffer<T: OclPrm> {
    buffer: Buffer<T>,
    len: usize,
    name: String,
}

impl<T: OclPrm> DeviceBuffer<T> {
    /// The underlying OpenCL buffer (at least one element), e.g. for `KernelBuilder::arg`.
    pub fn buffer(&self) -> &Buffer<T> {
        &self.buffer
    }

    /// Logical number of elements (0 for an empty buffer, although one element is allocated).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the logical length is 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The name given at creation (used in error messages).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Logical size in bytes.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

/// Maps an `ocl` error to [`Error::OpenCl`] prefixed with `what` was being done, e.g.
/// `.map_err(cl_error("reading buffer `results`"))`. API errors are shortened to their status
/// name (`CL_INVALID_WORK_GROUP_SIZE (-54)`) instead of `ocl`'s multi-line banner.
pub fn cl_error<E: Into<ocl::Error>>(what: impl Display) -> impl FnOnce(E) -> Error {
    move |e| Error::OpenCl(format!("{what}: {}", describe(&e.into())))
}

/// Runs `f` (calls into `ocl`), mapping its error with [`cl_error`] and a panic inside the wrapper
/// to [`Error::OpenCl`] as well; `what` is only formatted on failure.
pub fn cl_call<R, S: Display>(
    what: impl FnOnce() -> S,
    f: impl FnOnce() -> std::result::Result<R, ocl::Error>,
) -> Result<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(Error::OpenCl(format!("{}: {}", what(), describe(&e)))),
        Err(panic) => Err(Error::OpenCl(format!(
            "{}: the OpenCL wrapper failed: {}",
            what(),
            panic_message(&*panic)
        ))),
    }
}

fn describe(e: &ocl::Error) -> String {
    match e.api_status() {
        Some(status) => format!("{status:?} ({})", status as i32),
        None => e
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

impl Gpu {
    /// Opens the device `selector` picks (see [`DeviceSelector`]; `Auto` reads `GEMP_DEVICE`).
    ///
    /// Errors: no OpenCL platform or device, a bad `GEMP_DEVICE` or index (the message lists the
    /// available devices), context or queue creation failure.
    pub fn new(selector: DeviceSelector) -> Result<Gpu> {
        let found = discovery::enumerate()?;
        let infos: Vec<DeviceInfo> = found.iter().map(|f| f.info.clone()).collect();
        let env = match std::env::var(GEMP_DEVICE_ENV) {
            Ok(v) => Some(v),
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(v)) => {
                return Err(Error::OpenCl(format!(
                    "{GEMP_DEVICE_ENV}={v:?} is not a device index"
                )))
            }
        };
        let index = select_device(&infos, selector, env.as_deref())?;
        let chosen = &found[index];
        let info = chosen.info.clone();
        let platform = Platform::new(chosen.platform);
        let device = Device::from(chosen.device);
        let context = cl_call(
            || format!("creating an OpenCL context on {}", info.summary()),
            || {
                Context::builder()
                    .platform(platform)
                    .devices(device)
                    .build()
            },
        )?;
        super::count_context_opened();
        let queue = cl_call(
            || format!("creating a command queue on {}", info.summary()),
            || {
                Queue::new(
                    &context,
                    device,
                    Some(CommandQueueProperties::PROFILING_ENABLE),
                )
            },
        )?;
        log::debug!("OpenCL device {}", info.summary());
        Ok(Gpu {
            platform,
            device,
            context,
            queue,
            info,
            programs: Mutex::new(HashMap::new()),
        })
    }

    /// The open device's description.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The `ocl` platform.
    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// The `ocl` device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The `ocl` context (one device).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The in-order, profiling-enabled command queue.
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    // ----------------------------------------------------------------------------------------
    // Buffers
    // ----------------------------------------------------------------------------------------

    /// A device buffer holding a copy of `data`. `read_only` buffers are `CL_MEM_READ_ONLY`
    /// (kernels must not write them); otherwise `CL_MEM_READ_WRITE`. An empty `data` gives an empty
    /// [`DeviceBuffer`] (one element allocated). Errors name the buffer and its size, including a
    /// size above the device's `CL_DEVICE_MAX_MEM_ALLOC_SIZE`.
    pub fn buffer_from<T: OclPrm>(
        &self,
        name: &str,
        data: &[T],
        read_only: bool,
    ) -> Result<DeviceBuffer<T>> {
        self.check_alloc::<T>(name, data.len())?;
        let flags = if read_only {
            MemFlags::new().read_only()
        } else {
            MemFlags::new().read_write()
        };
        let one = [T::default()];
        let host: &[T] = if data.is_empty() { &one } else { data };
        let buffer = cl_call(
            || self.buffer_what(name, std::mem::size_of_val(data)),
            || {
                Buffer::builder()
                    .queue(self.queue.clone())
                    .flags(flags)
                    .len(host.len())
                    .copy_host_slice(host)
                    .build()
            },
        )?;
        Ok(DeviceBuffer {
            buffer,
            len: data.len(),
            name: name.to_string(),
        })
    }

    /// A read-write device buffer of `len` zeroed elements (`T::default()`, which is zero for
    /// every OpenCL scalar and vector type). `len` 0 gives an empty [`DeviceBuffer`].
    pub fn zeroed<T: OclPrm>(&self, name: &str, len: usize) -> Result<DeviceBuffer<T>> {
        self.check_alloc::<T>(name, len)?;
        let buffer = cl_call(
            || self.buffer_what(name, len * std::mem::size_of::<T>()),
            || {
                Buffer::builder()
                    .queue(self.queue.clone())
                    .flags(MemFlags::new().read_write())
                    .len(len.max(1))
                    .fill_val(T::default())
                    .build()
            },
        )?;
        Ok(DeviceBuffer {
            buffer,
            len,
            name: name.to_string(),
        })
    }

    /// A read-write device buffer of `len` elements with undefined contents, for outputs a kernel
    /// overwrites completely. `len` 0 gives an empty [`DeviceBuffer`].
    pub fn uninit<T: OclPrm>(&self, name: &str, len: usize) -> Result<DeviceBuffer<T>> {
        self.check_alloc::<T>(name, len)?;
        let buffer = cl_call(
            || self.buffer_what(name, len * std::mem::size_of::<T>()),
            || {
                Buffer::builder()
                    .queue(self.queue.clone())
                    .flags(MemFlags::new().read_write())
                    .len(len.max(1))
                    .build()
            },
        )?;
        Ok(DeviceBuffer {
            buffer,
            len,
            name: name.to_string(),
        })
    }

    /// Reads the whole buffer back (blocking; waits for earlier commands on the queue).
    pub fn read<T: OclPrm>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.read_prefix(buf, buf.len)
    }

    /// Reads the first `len` elements back (e.g. the used part of a result buffer). `len` above the
    /// buffer's length is an error; 0 returns an empty vector without touching the device.
    pub fn read_prefix<T: OclPrm>(&self, buf: &DeviceBuffer<T>, len: usize) -> Result<Vec<T>> {
        if len > buf.len {
            return Err(Error::InvalidArgument(format!(
                "reading {len} elements from buffer `{}` of {} elements",
                buf.name, buf.len
            )));
        }
        let mut out = vec![T::default(); len];
        if len == 0 {
            return Ok(out);
        }
        cl_call(
            || {
                format!(
                    "reading buffer `{}` ({})",
                    buf.name,
                    human_bytes((len * std::mem::size_of::<T>()) as u64)
                )
            },
            || {
                buf.buffer
                    .read(&mut out)
                    .queue(&self.queue)
                    .offset(0)
                    .len(len)
                    .enq()
            },
        )?;
        Ok(out)
    }

    /// Writes `data` into the buffer starting at element `offset` (blocking). Writing past the end
    /// is an error; an empty `data` does nothing.
    pub fn write<T: OclPrm>(&self, buf: &DeviceBuffer<T>, offset: usize, data: &[T]) -> Result<()> {
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > buf.len)
        {
            return Err(Error::InvalidArgument(format!(
                "writing {} elements at offset {offset} into buffer `{}` of {} elements",
                data.len(),
                buf.name,
                buf.len
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        cl_call(
            || format!("writing buffer `{}`", buf.name),
            || {
                buf.buffer
                    .write(data)
                    .queue(&self.queue)
                    .offset(offset)
                    .len(data.len())
                    .enq()
            },
        )
    }

    /// Sets every element of the buffer to zero (`T::default()`), e.g. to reset a result counter
    /// between rounds. Enqueued; later commands on the queue see the zeroes.
    pub fn zero<T: OclPrm>(&self, buf: &DeviceBuffer<T>) -> Result<()> {
        cl_call(
            || format!("zeroing buffer `{}`", buf.name),
            || {
                buf.buffer
                    .cmd()
                    .queue(&self.queue)
                    .fill(T::default(), None)
                    .enq()
            },
        )
    }

    fn check_alloc<T>(&self, name: &str, len: usize) -> Result<()> {
        let Some(bytes) = len.checked_mul(std::mem::size_of::<T>()) else {
            return Err(Error::OpenCl(format!(
                "creating buffer `{name}` of {len} elements: size overflows"
            )));
        };
        let max = self.info.max_alloc_bytes;
        if max > 0 && bytes as u64 > max {
            return Err(Error::OpenCl(format!(
                "creating buffer `{name}` ({}): larger than the largest single allocation of {} \
                 ({}, CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                human_bytes(bytes as u64),
                self.info.name,
                human_bytes(max)
            )));
        }
        Ok(())
    }

    fn buffer_what(&self, name: &str, bytes: usize) -> String {
        format!(
            "creating buffer `{name}` ({}) on {}",
            human_bytes(bytes as u64),
            self.info.name
        )
    }

    // ----------------------------------------------------------------------------------------
    // Programs
    // ----------------------------------------------------------------------------------------

    /// Builds (or returns from the cache) the program made of `sources` concatenated in order,
    /// compiled with `-cl-std=CL1.2` followed by `options` (e.g. `-D WG=64`).
    ///
    /// The cache is per (name, options) — and per sources, so a name reused with other sources
    /// rebuilds; a second call returns the same `Arc`. A failed build is not cached; its error
    /// names the program, the device and the options and contains the compiler's full build log.
    pub fn program(&self, name: &str, sources: &[&str], options: &str) -> Result<Arc<Program>> {
        let key = ProgramKey {
            name: name.to_string(),
            options: options.to_string(),
            sources_hash: hash_sources(sources),
        };
        // Building under the lock keeps two threads from compiling the same program twice.
        let mut cache = self.programs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(program) = cache.get(&key) {
            return Ok(Arc::clone(program));
        }
        let program = Arc::new(self.build_program(name, sources, options)?);
        cache.insert(key, Arc::clone(&program));
        Ok(program)
    }

    /// Number of programs in the build cache.
    pub fn cached_programs(&self) -> usize {
        self.programs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    fn build_program(&self, name: &str, sources: &[&str], options: &str) -> Result<Program> {
        if sources.is_empty() {
            return Err(Error::OpenCl(format!(
                "building program `{name}`: no sources"
            )));
        }
        let mut strings = Vec::with_capacity(sources.len());
        for (i, s) in sources.iter().enumerate() {
            strings.push(CString::new(*s).map_err(|_| {
                Error::OpenCl(format!(
                    "building program `{name}`: source {i} contains a NUL byte"
                ))
            })?);
        }
        let all_options = format!("{CL_STD} {}", options.trim());
        let c_options = CString::new(all_options.trim()).map_err(|_| {
            Error::OpenCl(format!(
                "building program `{name}`: options contain a NUL byte"
            ))
        })?;
        let program = cl_call(
            || format!("creating program `{name}`"),
            || {
                core::create_program_with_source(self.context.as_core(), &strings)
                    .map_err(Into::into)
            },
        )?;
        let devices = [*self.device.as_core()];
        let built = catch_unwind(AssertUnwindSafe(|| {
            core::build_program(&program, Some(&devices[..]), &c_options, None, None)
        }));
        let failure = match built {
            Ok(Ok(())) => None,
            // `ocl-core` turns CL_BUILD_PROGRAM_FAILURE into an error carrying the log (no status);
            // the log is fetched below anyway, so name the status only.
            Ok(Err(e)) => Some(
                e.api_status()
                    .map(|s| format!("{s:?} ({})", s as i32))
                    .unwrap_or_else(|| "CL_BUILD_PROGRAM_FAILURE (-11)".to_string()),
            ),
            Err(panic) => Some(format!(
                "the OpenCL wrapper failed: {}",
                panic_message(&*panic)
            )),
        };
        let log = self.build_log(&program);
        match failure {
            None => {
                if !log.trim().is_empty() {
                    log::debug!("build log of program `{name}`:\n{}", log.trim_end());
                }
                Ok(Program::from(program))
            }
            Some(status) => Err(Error::OpenCl(format!(
                "building program `{name}` for {} with options `{}` failed ({status}); build log:\n{}\n\
                 (line numbers count from the start of the concatenated sources: {})",
                self.info.name,
                all_options.trim(),
                if log.trim().is_empty() {
                    "(the compiler left no build log)".to_string()
                } else {
                    log.trim_end().to_string()
                },
                source_line_map(sources)
            ))),
        }
    }

    fn build_log(&self, program: &core::Program) -> String {
        let result = catch_unwind(AssertUnwindSafe(|| {
            core::get_program_build_info(program, self.device, ProgramBuildInfo::BuildLog)
        }));
        match result {
            Ok(Ok(log)) => log.to_string().trim_end_matches('\0').to_string(),
            Ok(Err(e)) => format!("(build log unavailable: {})", describe(&e.into())),
            Err(_) => "(build log unavailable)".to_string(),
        }
    }

    // ----------------------------------------------------------------------------------------
    // Kernels
    // ----------------------------------------------------------------------------------------

    /// Creates kernel `name` of `program` on this queue; `set_args` adds the arguments in order.
    /// The crate's own kernels go through [`kernel_from`](Gpu::kernel_from) and their typed
    /// argument structs instead; this is the untyped form underneath (and for ad-hoc kernels).
    ///
    /// `ocl` checks the argument count and types against the kernel's signature; a mismatch is an
    /// error naming the kernel.
    pub fn kernel<'b, F>(&self, program: &'b Program, name: &str, set_args: F) -> Result<Kernel>
    where
        F: FnOnce(&mut KernelBuilder<'b>),
    {
        cl_call(
            || format!("creating kernel `{name}`"),
            || {
                let mut builder = Kernel::builder();
                builder
                    .program(program)
                    .name(name)
                    .queue(self.queue.clone());
                set_args(&mut builder);
                builder.build()
            },
        )
    }

    /// Creates the kernel a typed argument struct is for (see [`args`](super::args); its first
    /// kernel when it serves several) with all its arguments.
    pub fn kernel_from<'b, A: KernelArgs<'b>>(
        &self,
        program: &'b Program,
        args: A,
    ) -> Result<Kernel> {
        self.kernel_named(program, A::KERNELS[0], args)
    }

    /// Creates kernel `name`, one of those a typed argument struct serves (e.g. `eval_child` of
    /// [`EvalArgs`](super::args::EvalArgs)), with all its arguments; any other name is an error.
    pub fn kernel_named<'b, A: KernelArgs<'b>>(
        &self,
        program: &'b Program,
        name: &str,
        args: A,
    ) -> Result<Kernel> {
        if !A::KERNELS.contains(&name) {
            return Err(Error::InvalidArgument(format!(
                "kernel `{name}` does not take the arguments of {:?} (cl/{})",
                A::KERNELS,
                A::FILE
            )));
        }
        self.kernel(program, name, |b| args.apply(b))
    }

    /// The largest work-group kernel `name` of `program` can run with on this device
    /// (`CL_KERNEL_WORK_GROUP_SIZE`; may be below the device maximum, e.g. for register-hungry
    /// kernels).
    pub fn kernel_max_work_group(&self, program: &Program, name: &str) -> Result<usize> {
        let what = || format!("querying the work-group size of kernel `{name}`");
        let kernel = cl_call(what, || {
            core::create_kernel(program.as_core(), name).map_err(Into::into)
        })?;
        let r = cl_call(what, || {
            core::get_kernel_work_group_info(
                &kernel,
                self.device,
                KernelWorkGroupInfo::WorkGroupSize,
            )
            .map_err(Into::into)
        })?;
        match r {
            KernelWorkGroupInfoResult::WorkGroupSize(n) => Ok(n),
            other => Err(Error::OpenCl(format!(
                "{}: unexpected answer {other:?}",
                what()
            ))),
        }
    }

    /// Work-group size for kernel `name` of `program`: `preferred` (or the device type's default,
    /// see [`sizing::default_local_size`]) capped by the device's and the kernel's maximum.
    pub fn local_size(
        &self,
        program: &Program,
        name: &str,
        preferred: Option<usize>,
    ) -> Result<usize> {
        let kernel_max = self.kernel_max_work_group(program, name)?;
        Ok(sizing::choose_local_size(
            self.info.device_type,
            self.info.max_work_group_size,
            Some(kernel_max),
            preferred,
        ))
    }

    /// Enqueues `kernel` over `global` work-items (1-D) in work-groups of `local` (`None`: the
    /// driver chooses). Does not wait. `global` 0 does nothing (OpenCL forbids empty launches);
    /// with a `local` size, `global` must be a non-zero multiple of it (see
    /// [`sizing::round_up`](super::sizing::round_up)).
    pub fn run(&self, kernel: &Kernel, global: usize, local: Option<usize>) -> Result<()> {
        self.enqueue(kernel, global, local, None)
    }

    /// Like [`run`](Gpu::run) but waits for the kernel and returns its device execution time from
    /// the queue's profiling counters (`CL_PROFILING_COMMAND_START` to `_END`).
    pub fn run_timed(
        &self,
        kernel: &Kernel,
        global: usize,
        local: Option<usize>,
    ) -> Result<Duration> {
        if global == 0 {
            return Ok(Duration::ZERO);
        }
        let mut event = Event::empty();
        self.enqueue(kernel, global, local, Some(&mut event))?;
        let what = || format!("timing kernel `{}`", kernel_name(kernel));
        cl_call(what, || event.wait_for().map_err(Into::into))?;
        let start = cl_call(what, || event.profiling_info(ProfilingInfo::Start))?;
        let end = cl_call(what, || event.profiling_info(ProfilingInfo::End))?;
        let ns = end
            .time()
            .unwrap_or(0)
            .saturating_sub(start.time().unwrap_or(0));
        Ok(Duration::from_nanos(ns))
    }

    fn enqueue(
        &self,
        kernel: &Kernel,
        global: usize,
        local: Option<usize>,
        event: Option<&mut Event>,
    ) -> Result<()> {
        if global == 0 {
            return Ok(());
        }
        if let Some(l) = local {
            if l == 0 || global % l != 0 {
                return Err(Error::InvalidArgument(format!(
                    "kernel `{}`: global size {global} is not a multiple of local size {l}",
                    kernel_name(kernel)
                )));
            }
        }
        cl_call(
            || {
                format!(
                    "running kernel `{}` (global {global}, local {})",
                    kernel_name(kernel),
                    local.map_or("auto".to_string(), |l| l.to_string())
                )
            },
            || {
                let mut cmd = kernel.cmd().queue(&self.queue).global_work_size(global);
                if let Some(l) = local {
                    cmd = cmd.local_work_size(l);
                }
                if let Some(e) = event {
                    cmd = cmd.enew(e);
                }
                // SAFETY: the kernel's arguments were type-checked against its signature when it was
                // built ([`Gpu::kernel`]) and the buffers it holds are kept alive by the kernel; what
                // the kernel code does with them (bounds) is the responsibility of the `cl/` sources,
                // which guard every access with the element counts they are passed.
                unsafe { cmd.enq() }
            },
        )
    }

    /// Waits until every command enqueued so far has finished.
    pub fn finish(&self) -> Result<()> {
        cl_call(|| "waiting for the command queue", || self.queue.finish())
    }
}

fn kernel_name(kernel: &Kernel) -> String {
    kernel.name().unwrap_or_else(|_| "?".to_string())
}

/// Where each source starts in the concatenated program, e.g. `source 0 from line 1, source 1
/// from line 109`.
fn source_line_map(sources: &[&str]) -> String {
    let mut line = 1;
    let mut parts = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter().enumerate() {
        parts.push(format!("source {i} from line {line}"));
        line += s.matches('\n').count();
    }
    parts.join(", ")
}

fn hash_sources(sources: &[&str]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for s in sources {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    }
    h.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn gpu_and_buffers_are_send_sync() {
        assert_send_sync::<Gpu>();
        assert_send_sync::<DeviceBuffer<u32>>();
    }

    #[test]
    fn line_map() {
        assert_eq!(
            source_line_map(&["a\nb\n", "c\n", "d"]),
            "source 0 from line 1, source 1 from line 3, source 2 from line 4"
        );
    }

    #[test]
    fn source_hash_separates_boundaries() {
        assert_ne!(hash_sources(&["ab", "c"]), hash_sources(&["a", "bc"]));
        assert_eq!(hash_sources(&["x"]), hash_sources(&["x"]));
    }
}
