import traceback, sys
from core.design import Design
from core.plan import plan
from core.formats.exports import exports, export_text
nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 256
d = Design(gpu="H100", nodes=nodes, topology="classic-dragonfly", switch="QM9700")
p = plan(d)
print(p.summary().get("classic_dragonfly"))
def run(name, fn):
    try:
        r = fn(); print("OK", name, (len(r) if hasattr(r, "__len__") else ""))
    except Exception as e:
        print("FAIL", name, type(e).__name__, str(e)[:300]); traceback.print_exc(limit=-3)
for name in exports():
    run("export "+name, lambda: export_text(p, name))
from core.figures.topology import topology_figure
run("topology fig", lambda: topology_figure(p).to_json())
from core.figures.racks import rack_elevation_figure, floor_plan_figure
run("racks", lambda: rack_elevation_figure(p.layout).to_json())
from core.analysis.failure.whatif import what_if
run("whatif global", lambda: what_if(p, ["global:1"]))
run("whatif leaf", lambda: what_if(p, ["leaf:1"]))
from core.physical.cabling import cabling_plan
import core.physical.cabling as cab
run("bom", lambda: [print("  ", r.item, r.quantity) for r in p.bom if r.category in ("switch","cable","transceiver")])
from core.figures import keynumbers
run("keynumbers", lambda: [f() for f in []])
from core.formats.report import *
import core.formats.report as rep
run("report", lambda: rep.report_markdown(p) if hasattr(rep,"report_markdown") else None)
from core.designwords import *
import core.designwords as dw
print([n for n in dir(dw) if not n.startswith("_")])
