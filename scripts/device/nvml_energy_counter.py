#!/usr/bin/env python3
"""The NVML energy counter polled in a tight loop for 3 s, idle, through ctypes (outside miniapp):
its update interval and step.

Usage: nvml_energy_counter.py
"""
import ctypes, time, statistics
nv = ctypes.CDLL("libnvidia-ml.so.1")
assert nv.nvmlInit_v2() == 0
h = ctypes.c_void_p()
assert nv.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
e = ctypes.c_ulonglong()
reads, changes, steps, last, t0 = 0, [], [], None, time.perf_counter()
while time.perf_counter() - t0 < 3.0:
    nv.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e)); reads += 1
    now = time.perf_counter()
    if last is not None and e.value != last:
        changes.append(now); steps.append(e.value - last)
    last = e.value
iv = [b - a for a, b in zip(changes, changes[1:])]
print(f"  {reads} reads ({3.0/reads*1e6:.1f} us each), {len(changes)} changes")
if iv:
    print(f"  update interval: min {min(iv)*1e3:.2f} ms, median {statistics.median(iv)*1e3:.2f} ms, max {max(iv)*1e3:.2f} ms")
    print(f"  step: min {min(steps)} mJ, median {statistics.median(steps)} mJ, max {max(steps)} mJ (idle power {sum(steps[1:])/1e3/(changes[-1]-changes[0]):.1f} W)")
