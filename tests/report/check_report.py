#!/usr/bin/python3
"""`miniapp report` rendered by headless Chromium (ctest label `report`).

The report of the shipped Table 1 runs (docs/data/paper_table1-openmp, the CPU run, and
docs/data/paper_table1-cuda, the GPU run) must, as Chromium renders it: show the comparison
table with one row per case and both runs' columns, the plots as SVG with a real size on the
page, the performance-portability heat map and a cascade plot per problem, and the metadata with the backend difference highlighted; fit the window's width, every table whole (none past the 1400-px window or scrolling sideways in its box); and give a
screenshot that is not blank. A copy of the GPU run whose device name and command line hold
markup must show that markup as text, with no script run.

Environment: MINIAPP (the binary), MINIAPP_SOURCE_DIR (the source tree), CHROMIUM (optional; else
`chromium` on PATH). Exits 77 (ctest SKIP_RETURN_CODE) only when Chromium is not installed.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

MINIAPP = os.environ.get("MINIAPP", "build/openmp/bin/miniapp")
SOURCE = os.environ.get("MINIAPP_SOURCE_DIR", ".")
CPU_RUN = os.path.join(SOURCE, "docs/data/paper_table1-openmp")
GPU_RUN = os.path.join(SOURCE, "docs/data/paper_table1-cuda")
EVIL_DEVICE = "<script>document.title='PWNED';document.body.dataset.pwned='1'</script>"
EVIL_WORD = "name=<b>bold</b> & 'it'"
SKIP = 77
HANG_S = 600  # each Chromium or miniapp call: ends a hang only (ctest's TIMEOUT is 1800 s)


class Dom(html.parser.HTMLParser):
    """The elements of a page as (tag, attributes, text) with their ancestors' tags, no library."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.stack = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": "", "parents": [e["tag"] for e in self.stack],
              "ids": [e["attrs"].get("id") for e in self.stack]}
        self.elements.append(el)
        if tag not in ("br", "meta", "img", "input", "link", "hr", "path", "use"):
            self.stack.append(el)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data

    def find(self, tag, inside_id=None, **attrs):
        return [e for e in self.elements if e["tag"] == tag
                and (inside_id is None or inside_id in e["ids"] or e["attrs"].get("id") == inside_id)
                and all(e["attrs"].get(k) == v for k, v in attrs.items())]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Chromium:
    def __init__(self, exe, tmp):
        self.exe, self.tmp = exe, tmp
        self.env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=tmp, XDG_CACHE_HOME=tmp)

    def run(self, *args):
        cmd = [self.exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
               f"--user-data-dir={self.tmp}/profile", *args]
        # A bound on a hang, not on this machine's speed: under a load of 20 on 2 CPUs a render
        # takes tens of seconds, and the whole test outlasted ctest's old 120 s.
        p = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=HANG_S)
        check(p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
        return p.stdout

    def dom(self, url, *args):
        return self.run("--dump-dom", *args, url)


def report(out, *runs, env=None):
    return subprocess.run([MINIAPP, "report", *runs, "-o", out], capture_output=True, text=True,
                          timeout=HANG_S, env=env)


def make_report(out, *runs):
    p = report(out, *runs)
    check(p.returncode == 0, f"miniapp report exited {p.returncode}: {p.stderr}")
    check("(3 plots)" in p.stderr, f"expected 3 plots (rate, roofline, speedup): {p.stderr}")
    return os.path.join(out, "index.html")


def check_without_matplotlib_and_refusals(tmp):
    # A matplotlib that cannot be imported: the page has the table and says why there are no plots.
    fake = os.path.join(tmp, "no-matplotlib", "matplotlib")
    os.makedirs(fake)
    with open(os.path.join(fake, "__init__.py"), "w") as f:
        f.write("raise ImportError(\"No module named 'matplotlib'\")\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(fake))
    out = os.path.join(tmp, "no-plots")
    p = report(out, CPU_RUN, GPU_RUN, env=env)
    check(p.returncode == 0 and "(0 plots)" in p.stderr, f"without matplotlib: {p.stderr}")
    dom = Dom(open(os.path.join(out, "index.html")).read())
    note = [e["text"] for e in dom.elements if e["attrs"].get("id") == "plots-note"]
    check(note and "python3-matplotlib" in note[0], f"the note on the missing plots: {note}")
    check(not [e for e in dom.find("svg") if "portability" not in e["ids"]],
          "no plots without matplotlib (the portability figures are the program's own)")
    check(len(dom.find("tr", inside_id="comparison", **{"class": "case"})) == 6,
          "the table is there without matplotlib")
    # Never through a symbolic link; a run that cannot be read is a usage error.
    target = os.path.join(tmp, "target.txt")
    with open(target, "w") as f:
        f.write("keep")
    os.makedirs(os.path.join(tmp, "linked"))
    os.symlink(target, os.path.join(tmp, "linked", "index.html"))
    p = report(os.path.join(tmp, "linked"), CPU_RUN)
    check(p.returncode == 2 and open(target).read() == "keep",
          f"-o onto a symbolic link: exit {p.returncode}, {p.stderr}")
    p = report(os.path.join(tmp, "x"), os.path.join(tmp, "no-such-run"))
    check(p.returncode == 2 and "no-such-run" in p.stderr, f"a missing run: {p.returncode}")


def check_table1(chrome, page):
    dom = Dom(chrome.dom("file://" + page))
    cases = dom.find("tr", inside_id="comparison", **{"class": "case"})
    expected = json.load(open(os.path.join(CPU_RUN, "results.json")))["results"]
    check(len(cases) == len(expected) == 6, f"{len(cases)} case rows, want one per case (6)")
    for n, row in zip((128, 256, 512, 1024, 2048, 4096), cases):
        check(f"{n}x{n}" in row["text"], f"case row {row['text']!r} is not {n}x{n}")
    heads = {e["attrs"]["data-run"]: e["text"] for e in dom.find("th", inside_id="comparison")
             if e["attrs"].get("class") == "run"}
    check(set(heads) == {"1", "2"}, f"run columns {heads}")
    check("openmp" in heads["1"] and "baseline" in heads["1"], f"run 1 column: {heads['1']!r}")
    check("NVIDIA H100" in heads["2"], f"run 2 column: {heads['2']!r}")
    check(len([e for e in dom.find("td", inside_id="comparison") if e["attrs"].get("data-run")
               == "2"]) == 6, "a rate of run 2 in every case row")
    plots = [e for e in dom.find("svg") if "portability" not in e["ids"]]
    check(len(plots) == 3, f"{len(plots)} inline SVG plots, want 3")
    # Performance portability: the heat map with a PP per problem, one cascade per problem.
    pp = dom.find("svg", inside_id="portability")
    check(len(pp) == 1 + 6, f"{len(pp)} portability figures, want the heat map and 6 cascades")
    heat = dom.find("figure", inside_id="pp-heat-map")
    check(heat and all(f"axpby/float32/{n}x{n}" in heat[0]["text"]
                       for n in (128, 256, 512, 1024, 2048, 4096)), "a heat map row per problem")
    # Headers are the runs' labels, wrapped over several lines (never cut): one text per line.
    heads = " ".join(e["text"] for e in dom.find("text", inside_id="pp-heat-map"))
    check(all(w in heads for w in ("PP", "cuda", "on NVIDIA H100")), f"the heat map columns {heads}")
    cascades = [e["text"] for e in dom.find("figcaption", inside_id="portability")
                if e["text"].startswith("cascade: ")]
    check(len(cascades) == 6, f"cascade captions {cascades}")
    # The metadata: backend row, the GPU run's cell highlighted, the baseline's not.
    rows = [e for e in dom.find("tr", inside_id="metadata") if "tbody" in e["parents"]]
    backend = [r for r in rows if r["text"].startswith("backend")]
    check(len(backend) == 1, "one backend row in the metadata table")
    i = dom.elements.index(backend[0])
    cells = [e for e in dom.elements[i + 1:i + 4] if e["tag"] == "td"]
    check([c["text"] for c in cells] == ["openmp", "cuda"], f"backend cells {cells}")
    check(cells[0]["attrs"].get("class") is None, "the baseline's backend is not highlighted")
    check(cells[1]["attrs"].get("class") == "differs", "the GPU run's backend is highlighted")
    check(not dom.find("script"), "the report holds no script")


def measure(chrome, tmp, page, expression):
    """The report as laid out: a page of our own frames it and writes into its DOM the JSON of
    `expression`, JavaScript over `d` (the report's document) and `box` (an element's size)."""
    probe = os.path.join(tmp, "probe.html")
    with open(probe, "w") as f:
        f.write(f"""<!DOCTYPE html><html><body style="margin:0">
<iframe id="r" src="file://{page}" style="width:1400px;height:2000px;border:0"></iframe>
<pre id="out"></pre><script>
window.addEventListener('load', () => {{
  const d = document.getElementById('r').contentDocument;
  const box = e => {{ const r = e.getBoundingClientRect(); return [r.width, r.height]; }};
  document.getElementById('out').textContent = JSON.stringify({expression});
}});
</script></body></html>""")
    dom = Dom(chrome.dom("file://" + probe, "--allow-file-access-from-files",
                         "--window-size=1400,2000"))
    out = [e for e in dom.elements if e["attrs"].get("id") == "out"]
    check(out and out[0]["text"].strip(), "the probe page measured nothing")
    return json.loads(out[0]["text"])


def check_rendered_sizes(chrome, tmp, page):
    m = measure(chrome, tmp, page, """{
    svgs: [...d.querySelectorAll('svg')].filter(s => !s.closest('#portability')).map(box),
    pp: [...d.querySelectorAll('#portability svg')].map(box),
    table: box(d.getElementById('comparison')),
    metadata: box(d.getElementById('metadata')),
    page: d.documentElement.scrollWidth, view: d.documentElement.clientWidth,
    tables: [...d.querySelectorAll('table')].map(t => [t.id, t.getBoundingClientRect().right,
                                                      t.parentElement.scrollWidth,
                                                      t.parentElement.clientWidth]),
    title: d.title, pwned: d.body.dataset.pwned || null }""")
    check(len(m["svgs"]) == 3, f"{len(m['svgs'])} SVGs laid out")
    for w, h in m["svgs"] + m["pp"]:
        check(w >= 300 and h >= 150, f"an SVG plot laid out at {w} x {h} px")
    check(len(m["pp"]) == 7, f"{len(m['pp'])} portability figures laid out")
    check(m["table"][0] > 400 and m["table"][1] > 150, f"comparison table at {m['table']}")
    check(m["page"] <= m["view"], f"the page ({m['page']} px) is wider than the window "
          f"({m['view']} px)")
    # Every table fits the 1400-px page whole: none runs past the window's right edge, and none
    # hides columns in a box that scrolls sideways.
    for name, right, inner, box in m["tables"]:
        check(right <= m["view"] and inner <= box,
              f"table {name!r} does not fit the {m['view']}-px page: it ends at {right:.0f} px, "
              f"its box scrolls {inner} px in {box} px")
    return m


def check_screenshot(chrome, tmp, page):
    png = os.path.join(tmp, "shot.png")
    chrome.run(f"--screenshot={png}", "--window-size=1400,2000", "file://" + page)
    check(os.path.isfile(png) and os.path.getsize(png) > 20000, "screenshot missing or tiny")
    import matplotlib.image
    import numpy
    img = matplotlib.image.imread(png)
    check(img.shape[0] == 2000 and img.shape[1] == 1400, f"screenshot is {img.shape}")
    rgb = (img[:, :, :3] * 255).astype(numpy.uint8).reshape(-1, 3)
    colours = len(numpy.unique(rgb, axis=0))
    ink = float((rgb.min(axis=1) < 200).mean())
    check(colours > 50, f"screenshot has {colours} colours: blank?")
    check(ink > 0.03, f"only {ink:.1%} of the screenshot is not white: blank?")
    return colours, ink


def check_injection(chrome, tmp):
    evil = os.path.join(tmp, "evil-cuda")
    os.makedirs(evil)
    doc = json.load(open(os.path.join(GPU_RUN, "results.json")))
    doc["metadata"]["device_name"] = EVIL_DEVICE
    doc["metadata"]["argv"] = ["miniapp", "run", "configs/paper_table1.yaml", "--set", EVIL_WORD]
    with open(os.path.join(evil, "results.json"), "w") as f:
        json.dump(doc, f)
    page = make_report(os.path.join(tmp, "evil-report"), CPU_RUN, evil)
    raw = open(page).read()
    check(EVIL_DEVICE not in raw and "<b>bold" not in raw, "markup from results.json written raw")
    dom = Dom(chrome.dom("file://" + page))
    check(not dom.find("script"), "a script element in the rendered report")
    check(not dom.find("b", inside_id="reproduce"), "markup from argv became an element")
    check(any(e["text"] == EVIL_DEVICE for e in dom.find("td", inside_id="metadata")),
          "the device name is not shown as text in the metadata table")
    code = [e["text"] for e in dom.find("code") if "paper_table1.yaml" in e["text"]
            and "--set" in e["text"]]
    check(code and code[0].endswith("--set 'name=<b>bold</b> & '\\''it'\\'''"),
          f"the reproduce command, as text and shell-quoted: {code}")
    title = [e["text"] for e in dom.find("title") if "head" in e["parents"]]
    check(title == ["miniapp report"], f"title {title}: a script ran")
    check("data-pwned" not in chrome.dom("file://" + page), "a script ran")


def main():
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not exe:
        print("SKIP: chromium is not installed (Debian's chromium; scripts/install-deps.sh)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="miniapp-report-test-") as tmp:
        chrome = Chromium(exe, tmp)
        page = make_report(os.path.join(tmp, "report"), CPU_RUN, GPU_RUN)
        check_table1(chrome, page)
        m = check_rendered_sizes(chrome, tmp, page)
        colours, ink = check_screenshot(chrome, tmp, page)
        check_injection(chrome, tmp)
        check_without_matplotlib_and_refusals(tmp)
        print(f"OK: 6 case rows, SVGs {m['svgs']}, table {m['table']}, "
              f"screenshot {colours} colours, {ink:.1%} ink")
    return 0


if __name__ == "__main__":
    sys.exit(main())
