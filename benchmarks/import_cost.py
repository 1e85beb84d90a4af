"""Start-up cost of the installed plugin on a suite that does not use it.

Usage: python benchmarks/import_cost.py [--tests 200] [--repeat 5]

Times ``pytest --collect-only`` on plain tests with the plugin loaded and with ``-p no:stages``,
interleaved, and checks that the plugin imported no JAX.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite import describe

PLAIN = "import sys\n\n" + "".join(f"def test_{i}():\n    assert 'jax' not in sys.modules\n\n" for i in range(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="stages-import-"))
    body = "".join(f"def test_{i}():\n    pass\n\n" for i in range(options.tests))
    (root / "test_plain.py").write_text(body)
    (root / "test_no_jax.py").write_text(PLAIN)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    samples: dict[str, list[float]] = {"with pytest-stages": [], "-p no:stages": []}
    for _ in range(options.repeat):
        for label, extra in (("with pytest-stages", []), ("-p no:stages", ["-p", "no:stages"])):
            start = time.perf_counter()
            subprocess.run([*base, "--collect-only", *extra], cwd=root, check=True, stdout=subprocess.DEVNULL)
            samples[label].append(time.perf_counter() - start)
    subprocess.run([*base, "test_no_jax.py"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    print(f"pytest --collect-only on {options.tests} plain tests (the plugin imported no JAX: checked)")
    for label, values in samples.items():
        print(describe(label, values))
    ratio = statistics.median(samples["with pytest-stages"]) / statistics.median(samples["-p no:stages"])
    print(f"ratio with/without: {ratio:.3f}x")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
