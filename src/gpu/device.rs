//! Device descriptions and selection rules — plain Rust, available without the `opencl` feature so
//! they can be unit-tested (and printed) anywhere.

use serde::Serialize;

use crate::error::{Error, Result};

/// The environment variable that picks the device for [`DeviceSelector::Auto`]: an index into the
/// list [`devices`](crate::gpu::devices) returns (and `gemp devices` prints).
pub const GEMP_DEVICE_ENV: &str = "GEMP_DEVICE";

/// Kind of an OpenCL device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceType {
    /// A graphics processor (`CL_DEVICE_TYPE_GPU`).
    Gpu,
    /// A dedicated accelerator (`CL_DEVICE_TYPE_ACCELERATOR`).
    Accelerator,
    /// A CPU device, e.g. PoCL's `pthread` device (`CL_DEVICE_TYPE_CPU`).
    Cpu,
    /// Anything else (`CL_DEVICE_TYPE_CUSTOM`, or a type the driver reports oddly).
    Other,
}

impl DeviceType {
    /// Short lower-case name: `gpu`, `accelerator`, `cpu`, `other`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceType::Gpu => "gpu",
            DeviceType::Accelerator => "accelerator",
            DeviceType::Cpu => "cpu",
            DeviceType::Other => "other",
        }
    }

    /// Preference of [`DeviceSelector::Auto`]: lower is better (GPU, accelerator, CPU, other).
    fn auto_rank(self) -> u8 {
        match self {
            DeviceType::Gpu => 0,
            DeviceType::Accelerator => 1,
            DeviceType::Cpu => 2,
            DeviceType::Other => 3,
        }
    }
}

impl std::fmt::Display for DeviceType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One OpenCL device as discovered: identity, kind and the limits the algorithms size their work by.
/// Memory sizes are in bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Position in the list [`devices`](crate::gpu::devices) returns (platforms in driver order, each
    /// platform's devices in driver order); what `GEMP_DEVICE` and [`DeviceSelector::Index`] refer to.
    pub index: usize,
    /// Index of the device's platform among all platforms.
    pub platform_index: usize,
    /// Platform name, e.g. `Portable Computing Language`.
    pub platform_name: String,
    /// Platform vendor.
    pub platform_vendor: String,
    /// Platform version string, e.g. `OpenCL 3.0 PoCL 3.1 …`.
    pub platform_version: String,
    /// Device name, e.g. `pthread-haswell-AMD EPYC`.
    pub name: String,
    /// Device vendor.
    pub vendor: String,
    /// GPU, accelerator, CPU or other.
    pub device_type: DeviceType,
    /// Global memory (`CL_DEVICE_GLOBAL_MEM_SIZE`).
    pub global_mem_bytes: u64,
    /// Largest single buffer (`CL_DEVICE_MAX_MEM_ALLOC_SIZE`).
    pub max_alloc_bytes: u64,
    /// Local (work-group shared) memory (`CL_DEVICE_LOCAL_MEM_SIZE`).
    pub local_mem_bytes: u64,
    /// Parallel compute units (`CL_DEVICE_MAX_COMPUTE_UNITS`).
    pub compute_units: u32,
    /// Highest clock of a compute unit in MHz (`CL_DEVICE_MAX_CLOCK_FREQUENCY`; 0 when the
    /// driver does not say): with `compute_units`, what `--backend auto`'s cost model
    /// ([`crate::gpu::cost`]) scales the device's throughput by.
    pub max_clock_mhz: u32,
    /// Largest work-group (`CL_DEVICE_MAX_WORK_GROUP_SIZE`).
    pub max_work_group_size: usize,
    /// OpenCL C version, e.g. `OpenCL C 1.2 PoCL`.
    pub opencl_c_version: String,
    /// Device OpenCL version string, e.g. `OpenCL 3.0 PoCL HSTR: …`.
    pub device_version: String,
    /// Driver version, e.g. `3.1+debian`.
    pub driver_version: String,
    /// Whether the driver reports the device as available (`CL_DEVICE_AVAILABLE`) with a compiler
    /// (`CL_DEVICE_COMPILER_AVAILABLE`); `Auto` skips devices that are not.
    pub available: bool,
}

impl DeviceInfo {
    /// One line: `#index type name (platform)`.
    pub fn summary(&self) -> String {
        format!(
            "#{} {} {} ({})",
            self.index, self.device_type, self.name, self.platform_name
        )
    }
}

/// Which device [`Gpu::new`](crate::gpu::Gpu::new) opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceSelector {
    /// `GEMP_DEVICE` when set (an index into [`devices`](crate::gpu::devices)); otherwise the first
    /// available GPU, else accelerator, else CPU, else any device.
    #[default]
    Auto,
    /// This index into [`devices`](crate::gpu::devices) (ignores `GEMP_DEVICE`).
    Index(usize),
}

/// Resolves `selector` against a device list; `env` is the value of `GEMP_DEVICE` (`None` when
/// unset; only [`DeviceSelector::Auto`] reads it; an empty or blank value counts as unset).
///
/// Returns the chosen position in `devices`. Errors (as [`Error::OpenCl`]) name the bad value and
/// list the available devices: an empty list, an index out of range, a `GEMP_DEVICE` that is not a
/// number.
pub fn select_device(
    devices: &[DeviceInfo],
    selector: DeviceSelector,
    env: Option<&str>,
) -> Result<usize> {
    if devices.is_empty() {
        return Err(Error::OpenCl(
            "no OpenCL device found (the OpenCL platforms report no devices)".into(),
        ));
    }
    let (index, source) = match selector {
        DeviceSelector::Index(i) => (i, format!("device index {i}")),
        DeviceSelector::Auto => match env.map(str::trim).filter(|s| !s.is_empty()) {
            Some(value) => match value.parse::<usize>() {
                Ok(i) => (i, format!("{GEMP_DEVICE_ENV}={value}")),
                Err(_) => {
                    return Err(Error::OpenCl(format!(
                    "{GEMP_DEVICE_ENV}={value:?} is not a device index (a number from 0 to {}); \
                         available devices:\n{}",
                    devices.len() - 1,
                    device_list(devices)
                )))
                }
            },
            None => return Ok(auto_choice(devices)),
        },
    };
    if index >= devices.len() {
        return Err(Error::OpenCl(format!(
            "{source} is out of range: there {} {} device{} (indices 0 to {}); available devices:\n{}",
            if devices.len() == 1 { "is" } else { "are" },
            devices.len(),
            if devices.len() == 1 { "" } else { "s" },
            devices.len() - 1,
            device_list(devices)
        )));
    }
    Ok(index)
}

/// What `--backend auto` does with the devices found: run on `device` (an index into the list),
/// or on the host; `reason` says why, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoBackend {
    /// The device to open, or `None` for the host.
    pub device: Option<usize>,
    /// Why, in words (logged at info level).
    pub reason: String,
}

/// Whether the user named a device: `--device N` (an index selector) or a non-blank
/// `GEMP_DEVICE` (`env`).
pub fn names_a_device(selector: DeviceSelector, env: Option<&str>) -> bool {
    matches!(selector, DeviceSelector::Index(_)) || env.is_some_and(|v| !v.trim().is_empty())
}

/// Decides `--backend auto`: a device is used when it is a GPU or an accelerator, or when the
/// user named one (`--device N`, `GEMP_DEVICE`). A CPU OpenCL device (PoCL) alone is not used: on
/// a CPU the host matcher is faster and needs no device set-up; `--backend opencl` still runs on
/// it. An empty list means the host.
pub fn auto_backend(
    devices: &[DeviceInfo],
    selector: DeviceSelector,
    env: Option<&str>,
) -> Result<AutoBackend> {
    if devices.is_empty() {
        return Ok(AutoBackend {
            device: None,
            reason: "no OpenCL device found".into(),
        });
    }
    let named = names_a_device(selector, env);
    let index = select_device(devices, selector, env)?;
    let d = &devices[index];
    if named {
        return Ok(AutoBackend {
            device: Some(index),
            reason: format!("device {} was asked for", d.summary()),
        });
    }
    match d.device_type {
        DeviceType::Gpu | DeviceType::Accelerator if d.available => Ok(AutoBackend {
            device: Some(index),
            reason: format!("{} is a {}", d.summary(), d.device_type),
        }),
        _ => Ok(AutoBackend {
            device: None,
            reason: format!(
                "no GPU or accelerator among the OpenCL devices (best: {}); the host matcher is \
                 faster on a CPU (use --backend opencl to run on it anyway)",
                d.summary()
            ),
        }),
    }
}

/// The `Auto` choice without `GEMP_DEVICE`: best-ranked available device, first in list order on
/// ties; when none is available, the best-ranked one regardless. `devices` must not be empty.
fn auto_choice(devices: &[DeviceInfo]) -> usize {
    let best = |only_available: bool| {
        devices
            .iter()
            .enumerate()
            .filter(|(_, d)| d.available || !only_available)
            .min_by_key(|(i, d)| (d.device_type.auto_rank(), *i))
            .map(|(i, _)| i)
    };
    best(true).or_else(|| best(false)).unwrap_or(0)
}

/// The devices as indented lines, for error messages.
fn device_list(devices: &[DeviceInfo]) -> String {
    devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            // Use the list position: it is what an index refers to even if `index` fields are off.
            format!(
                "  {i}: {} {} ({}){}",
                d.device_type,
                d.name,
                d.platform_name,
                if d.available { "" } else { " [unavailable]" }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: usize, device_type: DeviceType, available: bool) -> DeviceInfo {
        DeviceInfo {
            index,
            platform_index: 0,
            platform_name: "P".into(),
            platform_vendor: "V".into(),
            platform_version: "OpenCL 1.2".into(),
            name: format!("dev{index}"),
            vendor: "V".into(),
            device_type,
            global_mem_bytes: 1 << 30,
            max_alloc_bytes: 1 << 28,
            local_mem_bytes: 1 << 15,
            compute_units: 4,
            max_clock_mhz: 1000,
            max_work_group_size: 256,
            opencl_c_version: "OpenCL C 1.2".into(),
            device_version: "OpenCL 1.2".into(),
            driver_version: "1".into(),
            available,
        }
    }

    #[test]
    fn auto_prefers_gpu_then_accelerator_then_cpu() {
        use DeviceType::*;
        let d = [
            dev(0, Cpu, true),
            dev(1, Accelerator, true),
            dev(2, Gpu, true),
        ];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 2);
        let d = [
            dev(0, Cpu, true),
            dev(1, Accelerator, true),
            dev(2, Cpu, true),
        ];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 1);
        let d = [dev(0, Other, true), dev(1, Cpu, true), dev(2, Cpu, true)];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 1);
        let d = [dev(0, Other, true)];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 0);
        // An unavailable GPU loses to an available CPU; with nothing available, rank still decides.
        let d = [dev(0, Cpu, true), dev(1, Gpu, false)];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 0);
        let d = [dev(0, Cpu, false), dev(1, Gpu, false)];
        assert_eq!(select_device(&d, DeviceSelector::Auto, None).unwrap(), 1);
    }

    #[test]
    fn env_and_index() {
        use DeviceType::*;
        let d = [dev(0, Cpu, true), dev(1, Gpu, true)];
        assert_eq!(
            select_device(&d, DeviceSelector::Auto, Some("0")).unwrap(),
            0
        );
        assert_eq!(
            select_device(&d, DeviceSelector::Auto, Some(" 1 ")).unwrap(),
            1
        );
        assert_eq!(
            select_device(&d, DeviceSelector::Auto, Some("")).unwrap(),
            1
        );
        // An explicit index ignores the environment.
        assert_eq!(
            select_device(&d, DeviceSelector::Index(0), Some("1")).unwrap(),
            0
        );

        let e = select_device(&d, DeviceSelector::Auto, Some("7"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("GEMP_DEVICE=7 is out of range"), "{e}");
        assert!(
            e.contains("0: cpu dev0 (P)") && e.contains("1: gpu dev1 (P)"),
            "{e}"
        );
        let e = select_device(&d, DeviceSelector::Auto, Some("gpu"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("GEMP_DEVICE=\"gpu\" is not a device index"),
            "{e}"
        );
        let e = select_device(&d, DeviceSelector::Index(2), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("device index 2 is out of range"), "{e}");
        let e = select_device(&[], DeviceSelector::Auto, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no OpenCL device"), "{e}");
    }

    #[test]
    fn device_info_serialises() {
        let j = serde_json::to_value(dev(3, DeviceType::Accelerator, true)).unwrap();
        assert_eq!(j["device_type"], "accelerator");
        assert_eq!(j["index"], 3);
    }

    #[test]
    fn auto_backend_uses_gpus_and_named_devices_only() {
        let cpu = vec![dev(0, DeviceType::Cpu, true)];
        let a = auto_backend(&cpu, DeviceSelector::Auto, None).unwrap();
        assert_eq!(a.device, None);
        assert!(a.reason.contains("--backend opencl"), "{}", a.reason);
        assert!(
            !a.reason.contains("  "),
            "one space between words: {}",
            a.reason
        );
        let a = auto_backend(&cpu, DeviceSelector::Index(0), None).unwrap();
        assert_eq!(a.device, Some(0));
        let a = auto_backend(&cpu, DeviceSelector::Auto, Some("0")).unwrap();
        assert_eq!(a.device, Some(0));
        let mixed = vec![dev(0, DeviceType::Cpu, true), dev(1, DeviceType::Gpu, true)];
        assert_eq!(
            auto_backend(&mixed, DeviceSelector::Auto, None)
                .unwrap()
                .device,
            Some(1)
        );
        let acc = vec![dev(0, DeviceType::Accelerator, true)];
        assert_eq!(
            auto_backend(&acc, DeviceSelector::Auto, None)
                .unwrap()
                .device,
            Some(0)
        );
        let down = vec![dev(0, DeviceType::Gpu, false)];
        assert_eq!(
            auto_backend(&down, DeviceSelector::Auto, None)
                .unwrap()
                .device,
            None
        );
        assert_eq!(
            auto_backend(&[], DeviceSelector::Auto, None)
                .unwrap()
                .device,
            None
        );
        assert!(auto_backend(&cpu, DeviceSelector::Index(3), None).is_err());
    }
}
