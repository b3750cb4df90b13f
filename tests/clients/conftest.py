from __future__ import annotations

import sys
from pathlib import Path

# The fake server module sits next to the tests (tests are not a package here).
sys.path.insert(0, str(Path(__file__).parent))
