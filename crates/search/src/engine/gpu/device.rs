//! The GPUs a process sees, each opened once (its context and the kernels' module kept).

use super::*;

/// How many devices the driver reports, or why none can be used (no driver, no device).
pub fn device_count() -> Result<usize> {
    // SAFETY: only tries to open the driver library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        bail!("no NVIDIA driver found (libcuda.so could not be loaded)");
    }
    let count = CudaContext::device_count().map_err(|e| anyhow!("the NVIDIA driver reports no device: {e:?}"))?;
    Ok(count as usize)
}

/// Whether a GPU can be used, and which: the names of the devices (each opened), or why not.
pub fn devices() -> Result<Vec<String>> {
    (0..device_count()?)
        .map(|i| {
            let ctx = match opened(i) {
                Some((ctx, _)) => ctx,
                None => CudaContext::new(i).map_err(|e| anyhow!("device {i}: {e:?}"))?,
            };
            let name = ctx.name().map_err(|e| anyhow!("device {i}: {e:?}"))?;
            let sms = ctx
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(0);
            Ok(format!("{name} ({sms} SMs)"))
        })
        .collect()
}

/// Whether a GPU engine can open: the kernels are built in and the driver finds a device. No
/// context is opened to ask (one opened and dropped here would be created again by the engine);
/// an engine that cannot open after all leaves `--backend auto` to the CPU.
pub fn usable() -> bool {
    !PTX.is_empty() && device_count().is_ok_and(|n| n > 0)
}

/// A device's context and the kernels' module on it, as the first engine on it opened them.
type Opened = (Arc<CudaContext>, Arc<CudaModule>);

/// Every device an engine has opened in this process, kept open: a ladder opens an engine per
/// rung, and each would otherwise create the device's context again (the last engine's went
/// with it) and have the driver compile the PTX for the device again.
static OPENED: Mutex<Vec<(usize, Opened)>> = Mutex::new(Vec::new());

/// Device `device`'s context and kernels, if an engine opened them.
fn opened(device: usize) -> Option<Opened> {
    let opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    opened.iter().find(|(d, _)| *d == device).map(|(_, o)| o.clone())
}

/// Device `device`'s context and kernels: opened once per process, then kept ([`OPENED`]),
/// unless a fault has poisoned the context kept (a kernel's trap or bad access stays with its
/// context): then the driver is asked again, which on driver 580 (H100) refuses with the fault
/// for the rest of the process, so that `--backend auto` takes the CPU with that reason.
pub(super) fn open_device(device: usize) -> Result<Opened> {
    if let Some(healthy) = opened(device).filter(|(ctx, _)| ctx.synchronize().is_ok()) {
        return Ok(healthy);
    }
    // Dropped with the poisoned context's last handles here, which the driver then destroys.
    OPENED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|(d, _)| *d != device);
    let ctx = CudaContext::new(device).map_err(driver("cannot open the GPU"))?;
    let module = ctx
        .load_module(Ptx::from_src(PTX))
        .map_err(driver("cannot load the kernels' PTX"))?;
    let mut opened = OPENED.lock().unwrap_or_else(PoisonError::into_inner);
    opened.push((device, (ctx.clone(), module.clone())));
    Ok((ctx, module))
}
