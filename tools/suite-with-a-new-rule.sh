#!/usr/bin/env bash
# "A new house rule is one module and nothing else", run literally: clone this checkout's committed tree into a
# scratch folder, write one new rule module into bot/host/rules/ as a contributor would (the Courtesy rule that
# tests/bot/host/rules/test_one_module.py writes, renamed Civility so that the test can still add its own), install
# the clone into a virtualenv of its own (constraints.txt, as CI does) and run the whole suite there. Nothing
# else is written: the suite must pass as it does without the rule.
# Usage: tools/suite-with-a-new-rule.sh [pytest args]   (DMHOST_KEEP=1 keeps the scratch folder and says where)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
top="$(mktemp -d)"
if [ "${DMHOST_KEEP:-}" = "1" ]; then echo "scratch: $top"; else trap 'rm -rf "$top"' EXIT; fi
scratch="$top/dmhost"
git clone -q "$here" "$scratch"
python3 - "$scratch" <<'EOF'
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
for old, new in [
    ("courtesy", "civility"), ("Courtesy", "Civility"), ("greetings", "salutations"), ("well met", "good day"),
    ("GREET", "SALUTE"), ("greeted", "saluted"), ("greets", "salutes"), ("Greet", "Salute"), ("greet", "salute"),
    ("order: ClassVar[int] = 95", "order: ClassVar[int] = 96"),
]:
    module = module.replace(old, new)
(scratch / "bot/host/rules/civility.py").write_text(textwrap.dedent(module).lstrip(), encoding="utf-8")
print("wrote bot/host/rules/civility.py (the only change)")
EOF
python3 -m venv "$top/venv"
# shellcheck disable=SC1091
. "$top/venv/bin/activate"
cd "$scratch"
PIP_CONSTRAINT="$scratch/constraints.txt" python -m pip install --quiet -e '.[test]'
python -c 'from bot.host import rules; assert any(r.key == "civility" for r in rules.REGISTRY)'
echo "the registry finds civility; running the suite in $scratch"
python -m pytest "$@"
