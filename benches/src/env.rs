//! The machine the report runs on, and how busy it is: load average and CPU steal time
//! (`/proc/stat`), read before and after the run, since on a shared or virtual machine other
//! work competing for the cores moves every number.

use crate::cli;

/// "CPU model, N cores available; transparent huge pages: mode".
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = (cpuinfo.lines().find(|l| l.starts_with("model name")))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, v)| v.trim());
    format!(
        "{cpu}, {} cores available; transparent huge pages: {}",
        cli::available_cores(),
        thp_mode()
    )
}

/// The kernel's transparent-huge-page mode, e.g. "madvise", for the report's notes.
pub fn thp_mode() -> String {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(['[', ']']).to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// Load average and cumulative CPU ticks at one moment.
pub struct Busy {
    /// 1, 5 and 15-minute load averages, as the kernel prints them.
    pub load: String,
    /// Ticks stolen by the hypervisor, and all ticks, summed over the CPUs.
    steal: Option<(u64, u64)>,
}

impl Busy {
    pub fn now() -> Busy {
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|| "unknown".to_string());
        let steal = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
            // cpu  user nice system idle iowait irq softirq steal guest guest_nice
            let line = s.lines().find(|l| l.starts_with("cpu "))?;
            let v: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            let total = v.iter().take(8).sum();
            Some((*v.get(7)?, total))
        });
        Busy { load, steal }
    }

    /// "load average 1.2 0.9 0.7, steal 123 ticks (0.4% of all CPU time since boot)".
    pub fn describe(&self) -> String {
        match self.steal {
            Some((s, t)) => format!(
                "load average {}; steal {s} ticks since boot ({:.2}% of CPU time)",
                self.load,
                s as f64 * 100.0 / t.max(1) as f64
            ),
            None => format!("load average {}; steal time unknown", self.load),
        }
    }

    /// Steal during the interval from `self` to `later`, as a share of the CPU time.
    pub fn steal_since(&self, later: &Busy) -> String {
        match (self.steal, later.steal) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => format!(
                "{:.2}% of CPU time stolen during the run ({} ticks)",
                (s1 - s0) as f64 * 100.0 / (t1 - t0) as f64,
                s1 - s0
            ),
            _ => "steal during the run unknown".to_string(),
        }
    }
}
