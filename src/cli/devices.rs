//! `gemp devices`: the OpenCL devices gemp can use, and which one `Auto` picks.

use clap::Args;

use gemp::gpu::{self, DeviceInfo, DeviceSelector, GEMP_DEVICE_ENV};

/// Arguments of `gemp devices`.
#[derive(Debug, Args)]
#[command(
    after_help = "The index is what GEMP_DEVICE selects; `*` marks the device used by default
(the first GPU, else accelerator, else CPU, unless GEMP_DEVICE is set).

Examples:
  gemp devices
  gemp devices --json
  GEMP_DEVICE=1 gemp devices"
)]
pub struct DevicesArgs {
    /// Print the device list as JSON (every field of every device).
    #[arg(long)]
    pub json: bool,
}

/// `gemp devices`.
pub fn devices(args: DevicesArgs) -> anyhow::Result<()> {
    // Listing is probing: the next `--backend auto` run probes again too.
    gpu::probe_memo::forget();
    let list = gpu::devices()?;
    let env = std::env::var(GEMP_DEVICE_ENV).ok();
    let chosen = match gpu::select_device(&list, DeviceSelector::Auto, env.as_deref()) {
        Ok(i) => Some(i),
        Err(e) => {
            eprintln!("warning: {e}");
            None
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        print!("{}", render(&list, chosen));
    }
    Ok(())
}

/// The device table: index, type, name, platform, global memory, compute units, OpenCL C
/// version; `chosen` is marked with `*`.
pub fn render(list: &[DeviceInfo], chosen: Option<usize>) -> String {
    let header = [
        "", "#", "type", "name", "platform", "memory", "units", "OpenCL C",
    ];
    let mut rows: Vec<[String; 8]> = vec![header.map(String::from)];
    for (i, d) in list.iter().enumerate() {
        rows.push([
            if chosen == Some(i) { "*" } else { "" }.to_string(),
            d.index.to_string(),
            format!(
                "{}{}",
                d.device_type,
                if d.available { "" } else { " (unavailable)" }
            ),
            d.name.clone(),
            d.platform_name.clone(),
            gemp::util::human_bytes(d.global_mem_bytes),
            d.compute_units.to_string(),
            d.opencl_c_version.clone(),
        ]);
    }
    let mut widths = [0usize; 8];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out += line.join("  ").trim_end();
        out += "\n";
    }
    if list.is_empty() {
        out += "(no OpenCL devices)\n";
    }
    out
}
