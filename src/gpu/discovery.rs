//! Platform and device discovery through checked `ocl::core` calls.
//!
//! `ocl`'s convenience layer panics when the platform list cannot be read (`Platform::list`), and
//! `ocl::core::get_platform_ids` sleeps for ten seconds retrying when the ICD loader reports
//! `CL_PLATFORM_NOT_FOUND_KHR` (no driver installed). So the platform count is first asked for
//! directly; no platform is an immediate, clean error. The rest runs inside `catch_unwind` as a last
//! guard against driver answers that `ocl-core` does not expect.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ocl::core::{self, ffi, DeviceId, PlatformId, PlatformInfo, Status};

use super::device::{DeviceInfo, DeviceType};
use crate::error::{Error, Result};

/// A discovered device with the handles needed to open it.
pub(super) struct Found {
    pub platform: PlatformId,
    pub device: DeviceId,
    pub info: DeviceInfo,
}

const NO_PLATFORM: &str = "no OpenCL platform found: install an OpenCL driver (an ICD), e.g. \
     PoCL for CPUs (`apt-get install pocl-opencl-icd ocl-icd-libopencl1`) or the GPU vendor's driver; \
     `clinfo -l` should then list it";

/// Number of OpenCL platforms the ICD loader reports; 0 when no driver is installed (the loader's
/// `CL_PLATFORM_NOT_FOUND_KHR`). Any other failure is an error.
pub fn platform_count() -> Result<usize> {
    let mut count: ffi::cl_uint = 0;
    // SAFETY: a size query — no output array (null with 0 entries), `count` is a valid place for the
    // answer. The call has no other preconditions.
    let status = unsafe { ffi::clGetPlatformIDs(0, std::ptr::null_mut(), &mut count) };
    if status == ffi::CL_PLATFORM_NOT_FOUND_KHR {
        return Ok(0);
    }
    if status != ffi::CL_SUCCESS {
        return Err(Error::OpenCl(format!(
            "listing OpenCL platforms (clGetPlatformIDs): {}",
            status_name(status)
        )));
    }
    Ok(count as usize)
}

/// Lists every device of every OpenCL platform, in driver order; [`DeviceInfo::index`] is the
/// position in this list.
///
/// No platform at all (no driver installed, or the ICD loader finds none) is
/// `Error::OpenCl("no OpenCL platform found …")`. A platform whose devices cannot be listed is
/// skipped with a warning in the log; a platform with no devices contributes none.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    Ok(enumerate()?.into_iter().map(|f| f.info).collect())
}

/// Serialises discovery: PoCL's first device query (hwloc topology detection) is not thread-safe,
/// and two threads enumerating at once (e.g. two `Graph::run` calls with the automatic backend in
/// parallel tests) crashed inside the driver.
static DISCOVERY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// [`devices`] with handles.
pub(super) fn enumerate() -> Result<Vec<Found>> {
    let _one_at_a_time = DISCOVERY.lock().unwrap_or_else(|e| e.into_inner());
    if platform_count()? == 0 {
        return Err(Error::OpenCl(NO_PLATFORM.into()));
    }
    match catch_unwind(AssertUnwindSafe(enumerate_checked)) {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::OpenCl(format!(
                "listing OpenCL devices failed inside the OpenCL wrapper: {what}"
            )))
        }
    }
}

fn enumerate_checked() -> Result<Vec<Found>> {
    let platforms = core::get_platform_ids()
        .map_err(|e| Error::OpenCl(format!("listing OpenCL platforms: {e}")))?;
    if platforms.is_empty() {
        return Err(Error::OpenCl(NO_PLATFORM.into()));
    }
    let mut found = Vec::new();
    let mut failures = Vec::new();
    for (platform_index, &platform) in platforms.iter().enumerate() {
        let platform_name = platform_string(platform, PlatformInfo::Name);
        let ids = match core::get_device_ids(platform, Some(core::DeviceType::ALL), None) {
            Ok(ids) => ids,
            Err(e) if e.api_status() == Some(Status::CL_DEVICE_NOT_FOUND) => Vec::new(),
            Err(e) => {
                log::warn!("skipping OpenCL platform {platform_index} ({platform_name}): {e}");
                failures.push(format!("platform {platform_index} ({platform_name}): {e}"));
                continue;
            }
        };
        let platform_vendor = platform_string(platform, PlatformInfo::Vendor);
        let platform_version = platform_string(platform, PlatformInfo::Version);
        for device in ids {
            let info = DeviceInfo {
                index: found.len(),
                platform_index,
                platform_name: platform_name.clone(),
                platform_vendor: platform_vendor.clone(),
                platform_version: platform_version.clone(),
                name: device_string(device, ffi::CL_DEVICE_NAME),
                vendor: device_string(device, ffi::CL_DEVICE_VENDOR),
                device_type: device_type(device),
                global_mem_bytes: device_uint(device, ffi::CL_DEVICE_GLOBAL_MEM_SIZE),
                max_alloc_bytes: device_uint(device, ffi::CL_DEVICE_MAX_MEM_ALLOC_SIZE),
                local_mem_bytes: device_uint(device, ffi::CL_DEVICE_LOCAL_MEM_SIZE),
                compute_units: device_uint(device, ffi::CL_DEVICE_MAX_COMPUTE_UNITS)
                    .try_into()
                    .unwrap_or(u32::MAX),
                max_clock_mhz: device_uint(device, ffi::CL_DEVICE_MAX_CLOCK_FREQUENCY)
                    .try_into()
                    .unwrap_or(u32::MAX),
                max_work_group_size: device_uint(device, ffi::CL_DEVICE_MAX_WORK_GROUP_SIZE)
                    .try_into()
                    .unwrap_or(usize::MAX),
                opencl_c_version: device_string(device, ffi::CL_DEVICE_OPENCL_C_VERSION),
                device_version: device_string(device, ffi::CL_DEVICE_VERSION),
                driver_version: device_string(device, ffi::CL_DRIVER_VERSION),
                available: device_uint(device, ffi::CL_DEVICE_AVAILABLE) != 0
                    && device_uint(device, ffi::CL_DEVICE_COMPILER_AVAILABLE) != 0,
            };
            found.push(Found {
                platform,
                device,
                info,
            });
        }
    }
    if found.is_empty() && !failures.is_empty() {
        return Err(Error::OpenCl(format!(
            "no usable OpenCL device: {}",
            failures.join("; ")
        )));
    }
    Ok(found)
}

fn platform_string(platform: PlatformId, what: PlatformInfo) -> String {
    match core::get_platform_info(platform, what) {
        Ok(r) => String::from(r).trim_end_matches('\0').trim().to_string(),
        Err(e) => {
            log::debug!("clGetPlatformInfo({what:?}): {e}");
            "<unknown>".into()
        }
    }
}

fn device_raw(device: DeviceId, what: ffi::cl_device_info) -> Option<Vec<u8>> {
    match core::get_device_info_raw(device, what) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            log::debug!("clGetDeviceInfo({what:#x}): {e}");
            None
        }
    }
}

fn device_string(device: DeviceId, what: ffi::cl_device_info) -> String {
    match device_raw(device, what) {
        Some(bytes) => String::from_utf8_lossy(&bytes)
            .trim_end_matches('\0')
            .trim()
            .to_string(),
        None => "<unknown>".into(),
    }
}

/// An unsigned integer answer of any width (`cl_uint`, `cl_ulong`, `size_t`, `cl_bool`), native
/// endian; 0 when unavailable.
fn device_uint(device: DeviceId, what: ffi::cl_device_info) -> u64 {
    let Some(bytes) = device_raw(device, what) else {
        return 0;
    };
    match bytes.len() {
        4 => u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64,
        8 => u64::from_ne_bytes([
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
        ]),
        _ => 0,
    }
}

fn device_type(device: DeviceId) -> DeviceType {
    let bits = device_uint(device, ffi::CL_DEVICE_TYPE);
    if bits & ffi::CL_DEVICE_TYPE_GPU != 0 {
        DeviceType::Gpu
    } else if bits & ffi::CL_DEVICE_TYPE_ACCELERATOR != 0 {
        DeviceType::Accelerator
    } else if bits & ffi::CL_DEVICE_TYPE_CPU != 0 {
        DeviceType::Cpu
    } else {
        DeviceType::Other
    }
}

/// A readable name for the status codes discovery can meet, with the number.
fn status_name(status: ffi::cl_int) -> String {
    match status {
        ffi::CL_PLATFORM_NOT_FOUND_KHR => "CL_PLATFORM_NOT_FOUND_KHR (-1001)".into(),
        ffi::CL_INVALID_VALUE => "CL_INVALID_VALUE (-30)".into(),
        ffi::CL_OUT_OF_HOST_MEMORY => "CL_OUT_OF_HOST_MEMORY (-6)".into(),
        other => format!("OpenCL status {other}"),
    }
}
