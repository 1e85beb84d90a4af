"""Fails when a function of pytest_stages/ is more complex than 15 (radon's cyclomatic complexity), naming each.

ruff's mccabe counts differently (a boolean operator or a comprehension adds nothing there) and lets
such functions pass; radon's count is the one the project holds (CONTRIBUTING.md).
"""

import json
import subprocess
import sys

LIMIT = 15

report = json.loads(subprocess.run(["radon", "cc", "--json", "pytest_stages"], check=True, capture_output=True).stdout)
over = [
    f"{path}:{block['lineno']} {'.'.join(filter(None, (block.get('classname'), block['name'])))} {block['complexity']}"
    for path, blocks in sorted(report.items())
    for block in blocks
    if block["complexity"] > LIMIT
]
if over:
    print(f"{len(over)} function(s) above radon's complexity {LIMIT}; split them along their decisions:")
    print("\n".join(over))
    sys.exit(1)
