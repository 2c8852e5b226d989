//! `--backend auto`'s cost model for counts over the candidate space: the predicted time of the
//! host core's enumeration on all cores against the device's (`cl/space.cl`: upload, launches,
//! kernel), with the session's device set-up (context, program, model) already paid. The device
//! is chosen only when its prediction beats the host's by [`MARGIN`].
//!
//! Work is measured in *visits*: the order's estimated partial matches summed over its prefixes
//! (the host core's cost model, `OrderChoice::cost` of the candidate-space core), the number
//! of candidate-list steps either side takes. Throughputs:
//!
//! - host: [`HOST_VISITS_PER_THREAD`] per second per thread;
//! - device: `compute_units × clock / cycles per visit` (a visit is one work-group step of a
//!   cooperative intersection; [`cycles_per_visit`] by device type), plus uploading the flat
//!   candidate space at [`upload_bytes_per_second`] and [`LAUNCH_SECONDS`] per launch.
//!
//! The constants are first estimates, not measurements: a GPU session calibrates them with
//! `scripts/gpu-run` (docs/benchmarks.md, "On a GPU") and replaces them. Whatever they are, a CPU
//! OpenCL device (PoCL) runs on the host's own cores, so it never wins: its cycles per visit are
//! set so that it cannot.

use std::time::Duration;

use super::{DeviceInfo, DeviceType};

/// How much faster the device must be predicted to be (its time × `MARGIN` < the host's).
pub const MARGIN: f64 = 2.0;

/// Host core visits per second and thread (intersections of candidate-edge rows, failing sets).
pub const HOST_VISITS_PER_THREAD: f64 = 3.0e7;

/// Fixed cost of one kernel launch (enqueue, wait, read back the sums), in seconds.
pub const LAUNCH_SECONDS: f64 = 5.0e-5;

/// Clock assumed when the driver does not report one (MHz).
const DEFAULT_CLOCK_MHZ: f64 = 1000.0;

/// Device cycles per visit and compute unit: a GPU work-group step is a few memory round trips
/// shared by its lanes; a CPU device runs each work-group as a loop with barriers, far slower
/// than the host core's own search on the same cores.
pub fn cycles_per_visit(device_type: DeviceType) -> f64 {
    match device_type {
        DeviceType::Gpu => 200.0,
        DeviceType::Accelerator | DeviceType::Other => 400.0,
        DeviceType::Cpu => 4000.0,
    }
}

/// Host-to-device copy rate (bytes per second): PCIe for a discrete device, a memory copy for a
/// CPU device.
pub fn upload_bytes_per_second(device_type: DeviceType) -> f64 {
    match device_type {
        DeviceType::Cpu => 5.0e9,
        _ => 1.0e10,
    }
}

/// What a count over the candidate space costs, as both sides see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Estimated visits (the order's cost).
    pub visits: f64,
    /// Bytes the device path uploads (candidates and candidate-edge tables).
    pub upload_bytes: u64,
    /// Kernel launches (edge roots per batch).
    pub launches: u64,
}

/// The two predictions and the choice.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// Host core on `host_threads` threads.
    pub host: Duration,
    /// Device: upload, launches and kernel.
    pub device: Duration,
    /// True when the device wins by [`MARGIN`].
    pub device_wins: bool,
}

impl Prediction {
    /// One line for `gemp explain` and the log: the choice and the two predictions.
    pub fn describe(&self, device: &DeviceInfo) -> String {
        format!(
            "{}: predicted {:.3} ms on {} ({} compute units at {} MHz, set-up already paid) \
             against {:.3} ms on the host; the device is chosen only when {MARGIN}× faster",
            if self.device_wins {
                "the device"
            } else {
                "the host"
            },
            self.device.as_secs_f64() * 1e3,
            device.name,
            device.compute_units,
            device.max_clock_mhz,
            self.host.as_secs_f64() * 1e3,
        )
    }
}

/// Predicts both sides of `w` on `device` against `host_threads` host threads.
pub fn predict(w: &Workload, device: &DeviceInfo, host_threads: usize) -> Prediction {
    let visits = w.visits.max(0.0);
    let host = visits / (HOST_VISITS_PER_THREAD * host_threads.max(1) as f64);
    let clock = if device.max_clock_mhz == 0 {
        DEFAULT_CLOCK_MHZ
    } else {
        device.max_clock_mhz as f64
    };
    let rate =
        device.compute_units.max(1) as f64 * clock * 1e6 / cycles_per_visit(device.device_type);
    let dev = visits / rate
        + w.upload_bytes as f64 / upload_bytes_per_second(device.device_type)
        + w.launches.max(1) as f64 * LAUNCH_SECONDS;
    let device_wins = device.device_type != DeviceType::Cpu && dev * MARGIN < host;
    Prediction {
        host: Duration::from_secs_f64(host),
        device: Duration::from_secs_f64(dev),
        device_wins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(device_type: DeviceType, compute_units: u32, max_clock_mhz: u32) -> DeviceInfo {
        DeviceInfo {
            index: 0,
            platform_index: 0,
            platform_name: "P".into(),
            platform_vendor: "V".into(),
            platform_version: "OpenCL 1.2".into(),
            name: "d".into(),
            vendor: "V".into(),
            device_type,
            global_mem_bytes: 1 << 30,
            max_alloc_bytes: 1 << 28,
            local_mem_bytes: 1 << 15,
            compute_units,
            max_clock_mhz,
            max_work_group_size: 256,
            opencl_c_version: "OpenCL C 1.2".into(),
            device_version: "OpenCL 1.2".into(),
            driver_version: "1".into(),
            available: true,
        }
    }

    #[test]
    fn a_large_gpu_wins_large_counts_and_loses_small_ones() {
        // An H200-like GPU: 132 units at 1,980 MHz: 1.3e9 visits/s; 16 host threads: 4.8e8/s.
        let gpu = device(DeviceType::Gpu, 132, 1980);
        let big = Workload {
            visits: 1e10,
            upload_bytes: 1 << 30,
            launches: 30,
        };
        let p = predict(&big, &gpu, 16);
        // Host 1e10 / 4.8e8 = 20.8 s; device 7.6 s + 0.1 s + 1.5 ms.
        assert!((p.host.as_secs_f64() - 20.83).abs() < 0.01, "{p:?}");
        assert!((p.device.as_secs_f64() - 7.76).abs() < 0.01, "{p:?}");
        assert!(p.device_wins);
        assert!(p.describe(&gpu).starts_with("the device: predicted 77"));
        // A thousand visits: the host's 2 µs against the device's launch.
        let small = Workload {
            visits: 1e3,
            upload_bytes: 4096,
            launches: 1,
        };
        let p = predict(&small, &gpu, 16);
        assert!(!p.device_wins);
        assert!(p.describe(&gpu).starts_with("the host: "));
    }

    #[test]
    fn a_cpu_device_never_wins() {
        let cpu = device(DeviceType::Cpu, 64, 4000);
        let huge = Workload {
            visits: 1e14,
            upload_bytes: 0,
            launches: 1,
        };
        assert!(!predict(&huge, &cpu, 1).device_wins);
        // An unknown clock counts as 1 GHz.
        let unknown = device(DeviceType::Gpu, 100, 0);
        let p = predict(&huge, &unknown, 1);
        assert!((p.device.as_secs_f64() - 1e14 / (100.0 * 1e9 / 200.0)).abs() < 1.0);
    }
}
