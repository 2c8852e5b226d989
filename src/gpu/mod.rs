//! GPU access (GEMP's `CGPUAccess` component, §4.1): the one place that talks to OpenCL.
//!
//! Every OpenCL algorithm of the crate goes through this module:
//!
//! - **discovery** — [`devices`] lists every platform's devices as plain [`DeviceInfo`] records
//!   (no OpenCL handles, serialisable); no platform at all is a clean [`Error::OpenCl`], never a
//!   panic;
//! - **selection** — [`DeviceSelector`]: `Auto` prefers a GPU, then an accelerator, then a CPU, and
//!   honours the `GEMP_DEVICE` environment variable (an index into [`devices`]);
//! - **context** — [`Gpu`] owns platform, device, context and an in-order, profiling-enabled queue,
//!   creates [`DeviceBuffer`]s (zero-length ones transparently get one element, as OpenCL forbids
//!   empty buffers), reads them back and enqueues kernels; every OpenCL error becomes
//!   [`Error::OpenCl`] with what was being done;
//! - **programs** — [`Gpu::program`] builds `cl/*.cl` sources (embedded with `include_str!`, see
//!   [`COMMON_CL`]) with `-cl-std=CL1.2`, caches them, and reports build failures with the full log;
//! - **kernel arguments** — [`args`]: one typed struct per `cl/*.cl` kernel, checked against the
//!   kernel's parameter list by a unit test; [`Gpu::kernel_from`] builds a kernel from one;
//! - **scan** — [`scan`]: device prefix sum and stream compaction (GEMP's pivot step);
//! - **sizing** — [`sizing`]: work sizes and GEMP's formulas 1–3 for the next round's thread count;
//! - **cost** — [`cost`]: `--backend auto`'s prediction of device against host time for counts
//!   over the candidate space.
//!
//! The device-independent parts (device descriptions, selection rules, sizing, kernel sources) build
//! without the `opencl` cargo feature; [`devices`] then returns an error saying so.
//!
//! [`Error::OpenCl`]: crate::Error::OpenCl

// Without OpenCL the docs still mention the OpenCL-only items.
#![cfg_attr(not(feature = "opencl"), allow(rustdoc::broken_intra_doc_links))]

pub mod cost;
mod device;
pub mod probe_memo;
pub mod sizing;

#[cfg(feature = "opencl")]
pub mod args;
#[cfg(feature = "opencl")]
mod context;
#[cfg(feature = "opencl")]
mod discovery;
#[cfg(feature = "opencl")]
pub mod scan;

pub use device::{
    auto_backend, names_a_device, select_device, AutoBackend, DeviceInfo, DeviceSelector,
    DeviceType, GEMP_DEVICE_ENV,
};

#[cfg(feature = "opencl")]
pub use context::{cl_call, cl_error, DeviceBuffer, Gpu};
#[cfg(feature = "opencl")]
pub use discovery::{devices, platform_count};

thread_local! {
    /// OpenCL contexts this thread has opened (`Gpu::new`).
    static CONTEXTS_OPENED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many OpenCL contexts the calling thread has opened so far: what shows that a session kept
/// between queries opens its device once (a session opens its device on the thread that creates it).
pub fn contexts_opened_on_this_thread() -> u64 {
    CONTEXTS_OPENED.with(|c| c.get())
}

/// Counts one more context opened on this thread.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
fn count_context_opened() {
    CONTEXTS_OPENED.with(|c| c.set(c.get() + 1));
}

/// Shared OpenCL C helpers (`lower_bound_u32`, `upper_bound_u32`, `binary_search_edge`,
/// `has_edge`…); prepend it to any program that uses them.
pub const COMMON_CL: &str = include_str!("../../cl/common.cl");

/// Self-test kernels (`selftest_lower_bound`, `selftest_has_edge`) proving the device path works;
/// needs [`COMMON_CL`] before it.
pub const SELFTEST_CL: &str = include_str!("../../cl/selftest.cl");

/// Work-group prefix sum, block-offset addition and compaction scatter kernels used by [`scan`].
pub const SCAN_CL: &str = include_str!("../../cl/scan.cl");

/// Whether this build of gemp includes OpenCL support (the `opencl` cargo feature).
pub const OPENCL_ENABLED: bool = cfg!(feature = "opencl");

/// Without the `opencl` feature: always an error saying gemp was built without OpenCL support.
#[cfg(not(feature = "opencl"))]
pub fn devices() -> crate::Result<Vec<DeviceInfo>> {
    Err(crate::Error::OpenCl(
        "gemp was built without OpenCL support (rebuild with the default cargo feature `opencl`)"
            .into(),
    ))
}

/// The device selector for a command's `--device N` (`None`: [`DeviceSelector::Auto`], which
/// honours `GEMP_DEVICE`).
pub fn selector(device: Option<usize>) -> DeviceSelector {
    device.map_or(DeviceSelector::Auto, DeviceSelector::Index)
}

/// Where work runs — queries, similarity searches, TruST — for every command and the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// OpenCL when a GPU or accelerator is found (or a device is named with `--device` /
    /// `GEMP_DEVICE`), else the host, with a log line saying why. A CPU OpenCL device (PoCL) is
    /// used only when asked for: there the host matcher is faster. The command line remembers a
    /// "host" answer for the same OpenCL set-up, so later runs load no driver
    /// (`GEMP_NO_PROBE_MEMO=1`: probe every time; `gemp devices` forgets).
    #[default]
    Auto,
    /// The OpenCL pipeline; an error when no device can be opened.
    Opencl,
    /// The host matcher (all cores).
    Host,
}

/// The device `backend` runs on for `command` (`None`: the host): `host` none, `opencl` the device
/// `selector` names, `auto` as [`auto_device`] decides. Queries, similarity and TruST all choose
/// through this.
pub fn device_for(
    backend: Backend,
    selector: DeviceSelector,
    command: &str,
) -> crate::Result<Option<DeviceSelector>> {
    match backend {
        Backend::Host => Ok(None),
        Backend::Opencl => Ok(Some(selector)),
        Backend::Auto => auto_device(selector, command),
    }
}

/// `--backend auto` for every command (`match`, `batch`, `similarity`, `trust`, the library's
/// sessions): the device to open, or `None` for the host, by [`auto_backend_here`]'s rule (a GPU or
/// accelerator, or the device named by `--device` or `GEMP_DEVICE`). The choice and its reason
/// are logged at info level under `command`'s name.
pub fn auto_device(
    selector: DeviceSelector,
    command: &str,
) -> crate::Result<Option<DeviceSelector>> {
    let choice = auto_backend_here(selector)?;
    match choice.device {
        Some(i) => log::info!(
            "{command}: backend auto: OpenCL device {i} ({})",
            choice.reason
        ),
        None => log::info!("{command}: backend auto: the host ({})", choice.reason),
    }
    Ok(choice.device.map(DeviceSelector::Index))
}

/// `--backend auto`'s decision on this machine (see [`auto_backend`]): which device to open, if
/// any. Without OpenCL support or without any platform: the host.
///
/// When the command line turned [`probe_memo`] on and no device is named, a "host" answer found
/// earlier for the same OpenCL set-up is taken without loading any driver, and a new "host"
/// answer is remembered.
pub fn auto_backend_here(selector: DeviceSelector) -> crate::Result<AutoBackend> {
    #[cfg(feature = "opencl")]
    {
        let env = std::env::var(GEMP_DEVICE_ENV).ok();
        let named = names_a_device(selector, env.as_deref());
        let fingerprint = (!named && probe_memo::path().is_some()).then(probe_memo::fingerprint);
        if let Some(reason) = fingerprint.as_deref().and_then(probe_memo::remembered_host) {
            return Ok(AutoBackend {
                device: None,
                reason: format!(
                    "{reason} — remembered for this OpenCL set-up in {} (`gemp devices` probes \
                     again)",
                    probe_memo::path().map_or_else(String::new, |p| p.display().to_string())
                ),
            });
        }
        let choice = if !platform_count().is_ok_and(|n| n > 0) {
            AutoBackend {
                device: None,
                reason: "no OpenCL platform found".into(),
            }
        } else {
            auto_backend(&devices()?, selector, env.as_deref())?
        };
        if let (Some(fingerprint), None) = (&fingerprint, choice.device) {
            probe_memo::remember_host(fingerprint, &choice.reason);
        }
        Ok(choice)
    }
    #[cfg(not(feature = "opencl"))]
    {
        let _ = selector;
        Ok(AutoBackend {
            device: None,
            reason: "gemp was built without OpenCL support".into(),
        })
    }
}
