#!/usr/bin/env bash
# "A new house rule is one module and nothing else", run literally: copy the committed tree of this checkout
# into a scratch folder, write the rule module that tests/bot/host/rules/test_one_module.py writes (Courtesy,
# `courtesy=on`) into bot/host/rules/ as a contributor would, and run the whole suite there. Nothing else is
# written; the suite must pass as it does without the rule. Usage: tools/suite-with-a-new-rule.sh [pytest args]
# (the README's test command by default; run from a checkout whose Python environment has the test extras).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
top="$(mktemp -d)"
trap 'rm -rf "$top"' EXIT
scratch="$top/dmhost"
git clone -q "$here" "$scratch"
python - "$scratch" <<'EOF'
import ast
import pathlib
import sys
import textwrap

scratch = pathlib.Path(sys.argv[1])
test = scratch / "tests/bot/host/rules/test_one_module.py"
tree = ast.parse(test.read_text(encoding="utf-8"))
module = next(
    node.value.value
    for node in tree.body
    if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["MODULE"]
)
(scratch / "bot/host/rules/courtesy.py").write_text(textwrap.dedent(module).lstrip(), encoding="utf-8")
print("wrote bot/host/rules/courtesy.py (the only change)")
EOF
cd "$scratch"
PYTHONPATH="$scratch" python -c 'from bot.host import rules; assert any(r.key == "courtesy" for r in rules.REGISTRY)'
echo "the registry finds courtesy; running the suite in $scratch"
PYTHONPATH="$scratch" python -m pytest "$@"
