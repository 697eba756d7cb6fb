#!/usr/bin/python3
"""End-to-end: the plan's host-memory model holds what a run holds.

The plan refuses a case whose host bytes (its data, and the float64 values that check it:
case_host_bytes in kernels/families.cpp) exceed the host's memory. This test runs each family
whose check holds such values at two sizes on OpenMP, validated, and compares the growth of the
run's peak resident memory (the child's ru_maxrss) with the growth of the model's bytes: the model
must hold the run (an underestimate lets a case through that the out-of-memory killer then ends)
and stay near it (a model twice too large would refuse cases that fit). Growth, not the peaks: a
run also holds what does not grow with the case (the program, the ceilings' working sets).

Run by ctest (label e2e) as /usr/bin/python3 test_host_memory.py with MINIAPP (the binary) in
the environment.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")


def model_bytes(family, n):
    """case_host_bytes for a validated float32 n x n case (kernels/families.cpp)."""
    mn = n * n
    if family == "axpby":  # A, B, R; A kept, B, reference, bound as float64
        return 4 * 3 * mn + 8 * 4 * mn
    if family == "transpose":  # A, B; reference, bound
        return 4 * 2 * mn + 8 * 2 * mn
    if family == "matmul":  # A, B, C; A, B, |A|, |B|, reference, bound; tiled_rb's panels
        return 4 * 3 * mn + 8 * (2 * 2 * mn + 2 * mn) + 4 * (n + 256) * (2 * n + 256)
    raise ValueError(family)


class HostMemory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="miniapp-host-memory-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_growth_is_held_by_the_model(self):
        # Sizes where the case, not the ceilings' working sets (about 80 MB here), sets the peak.
        for family, variant, small, large in (("axpby", "flat", 2000, 3000),
                                              ("transpose", "flat", 2500, 3500),
                                              ("matmul", "tiled_rb", 1500, 2000)):
            with self.subTest(family=family):
                grew = (self.measure(family, variant, large) -
                        self.measure(family, variant, small)) * 1024
                model = model_bytes(family, large) - model_bytes(family, small)
                self.assertLessEqual(grew, model * 1.02, (family, grew, model))
                self.assertGreaterEqual(grew, model * 0.7, (family, grew, model))

    def measure(self, family, variant, n):
        """Peak resident memory of one run, in KiB."""
        name = f"{family}-{n}"
        config = os.path.join(self.tmp, name + ".yaml")
        with open(config, "w") as f:
            f.write(f"name: {family}\nbackend: openmp\nprecision: float32\nwarmup: 0\n"
                    f"repetitions: 1\nenergy: false\ncases:\n  - family: {family}\n"
                    f"    variant: {variant}\n    n: {n}\n")
        proc = subprocess.Popen([MINIAPP, "run", config, "--quiet", "--output-dir",
                                 os.path.join(self.tmp, name)],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, out)
        return usage.ru_maxrss


if __name__ == "__main__":
    unittest.main()
