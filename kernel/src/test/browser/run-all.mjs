// A newcomer's first hour, checked in the front end analysts open: JupyterLab 4 from the test
// environment's Python with the gluelab kernelspec, Debian's headless chromium driven by
// playwright-core. Every notebook in the given folder is opened (a copy in a temporary folder, so the
// committed .ipynb never changes), run with Run > Run All Cells, and checked for what a reader must
// see: rendered HTML tables, chart images that decode, a progress bar seen while a cell ran, no error
// output, every code cell executed. A full-page screenshot of each notebook is kept (windowing off,
// viewport as tall as the notebook). When the whole story ran, the experiment folder it leaves must be
// complete (what the `gluelab run` story test checks of its own run). Once per run, in a scratch notebook, the kernel's life in the
// front end: Tab after `lab.` offers Gluelab's own API first, Shift-Tab on `lab.bench(` shows the
// Javadoc summary of Gluelab.bench, an interrupt stops a running cell and the next cell runs, and a
// restarted kernel comes back and runs a cell.
//
//   JUPYTER_PATH=DIR node run-all.mjs --python VENV/bin/python --notebooks notebooks --out out/browser [--timeout 1200]
//
// JUPYTER_PATH must hold the gluelab kernelspec (bin/test installs it there); --python is a Python
// with jupyterlab installed (bin/test passes the test environment's). Exit status 0 only when every
// notebook and every front-end check passed.
import { chromium } from "playwright-core";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = parseArgs(process.argv.slice(2));
const notebooksDir = path.resolve(args.notebooks ?? "notebooks");
const outDir = path.resolve(args.out ?? "out/browser");
// Per notebook, for Run All to end: generous, as bin/test runs this beside the other parts on 2 cores (05-fix took
// 361 s at load average 25); a passing run never waits for it.
const timeoutMs = 1000 * Number(args.timeout ?? 1200);
const chromiumPath = args.chromium ?? "/usr/bin/chromium";
const python = args.python ?? "python3";
const only = args.only ? new Set(args.only.split(",")) : null;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
// The kernel's spec names the receiver of the once-per-run checks; its Javadoc is the expected tooltip text.
const gluelabSource = path.join(repoRoot, "engine/src/main/java/gluelab/lab/Gluelab.java");

function parseArgs(argv) {
  const known = new Set(["notebooks", "out", "timeout", "chromium", "python", "only"]);
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!known.has(key) || argv[i + 1] === undefined) {
      console.error(`run-all.mjs: unknown or incomplete option '${argv[i]}'; options: --python PATH --notebooks DIR --out DIR --timeout S --chromium PATH --only A.ipynb,B.ipynb`);
      process.exit(2);
    }
    out[key] = argv[i + 1];
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The URL and token of the server, from the server info file it writes once listening (jpserver-PID.json), or null. */
function serverInfo(runtimeDir) {
  for (const f of fs.existsSync(runtimeDir) ? fs.readdirSync(runtimeDir) : []) {
    if (!/^jpserver-\d+\.json$/.test(f)) continue;
    try {
      const info = JSON.parse(fs.readFileSync(path.join(runtimeDir, f), "utf8"));
      if (info.port) return { base: `http://127.0.0.1:${info.port}`, token: info.token };
    } catch { /* still being written */ }
  }
  return null;
}

/**
 * JupyterLab's user settings for the run: cells not virtualised (every cell is in the page, for the checks and the
 * full-page screenshot), and nothing that reaches the network (news, update checks, the extension manager).
 */
function writeLabSettings(settingsDir) {
  const put = (plugin, file, value) => {
    const dir = path.join(settingsDir, plugin);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${file}.jupyterlab-settings`), JSON.stringify(value));
  };
  put("@jupyterlab/notebook-extension", "tracker", { windowingMode: "none", scrollPastEnd: false });
  put("@jupyterlab/apputils-extension", "notification", { fetchNews: "false", checkForUpdates: false });
  put("@jupyterlab/extensionmanager-extension", "plugin", { enabled: false });
  // JupyterLab drops a completion provider's answer that takes longer than providerTimeout (default 1 s): that was why
  // Tab after `lab.` showed no list here. The kernel answers in about 0.3 s on a quiet machine, but this test runs beside
  // bin/test's other parts on 2 cores, where the same reply took seconds; what is checked is the list it brings.
  put("@jupyterlab/completer-extension", "manager", { providerTimeout: 30_000 });
}

/**
 * Starts JupyterLab in its own Jupyter dirs; resolves once its API answers. The free port is only a starting point:
 * another process may take it before the server binds, so the server tries the next ones itself (port_retries) and
 * the port it bound is read back from its server info file.
 */
async function startServer(workDir, scratch) {
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  const runtimeDir = path.join(scratch, "runtime");
  const settingsDir = path.join(scratch, "lab-settings");
  writeLabSettings(settingsDir);
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "GLUELAB_HOME" && k !== "GLUELAB_EXPERIMENTS")),
    JUPYTER_CONFIG_DIR: path.join(scratch, "config"),
    JUPYTER_DATA_DIR: path.join(scratch, "data"),
    JUPYTER_RUNTIME_DIR: runtimeDir,
    JUPYTERLAB_SETTINGS_DIR: settingsDir,
    JUPYTERLAB_WORKSPACES_DIR: path.join(scratch, "workspaces"),
  };
  const serverArgs = ["-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1", `--ServerApp.port=${port}`,
    "--ServerApp.port_retries=50", `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${workDir}`];
  if (process.getuid?.() === 0) serverArgs.push("--allow-root");
  const logPath = path.join(outDir, "jupyter-server.log");
  const log = fs.openSync(logPath, "w");
  const server = spawn(python, serverArgs, { env, stdio: ["ignore", log, log] });
  let exited = null;
  server.on("exit", (code) => { exited = code; });
  // Two minutes: the server starts in seconds, but a loaded 2-core CI machine can take far longer.
  for (let i = 0; i < 1200; i++) {
    if (exited !== null) throw new Error(`jupyter lab (${python}) exited with ${exited}; see ${logPath}`);
    const info = serverInfo(runtimeDir);
    if (info) {
      try {
        const r = await fetch(`${info.base}/api/status?token=${info.token}`);
        if (r.ok) return { server, ...info };
      } catch { /* not answering yet */ }
    }
    await sleep(100);
  }
  server.kill("SIGTERM");
  throw new Error(`jupyter lab did not answer within 120 s; see ${logPath}`);
}

/** Records, inside the page, every progress bar that appears while cells run, and how many were unfinished. */
function watchProgress() {
  window.__progress = { seen: 0, live: 0 };
  const note = (el) => {
    window.__progress.seen++;
    if (Number(el.getAttribute("value")) < Number(el.getAttribute("max"))) window.__progress.live++;
  };
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches("progress")) note(n);
        n.querySelectorAll("progress").forEach(note);
      }
    }
  }).observe(document.querySelector(".jp-NotebookPanel .jp-Notebook"), { childList: true, subtree: true });
}

/** What the reader sees once the run ended: per code cell its prompt, and the outputs by kind. */
function readPage() {
  const nb = document.querySelector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook");
  const cells = [...nb.querySelectorAll(".jp-CodeCell")];
  const text = (el) => el.innerText.trim().slice(0, 400);
  return {
    cells: cells.length,
    prompts: cells.map((c) => c.querySelector(".jp-InputPrompt")?.innerText.replace(/\s+/g, "") ?? ""),
    tables: nb.querySelectorAll(".jp-OutputArea-output table").length,
    images: [...nb.querySelectorAll(".jp-OutputArea-output img")].map((img) => ({ w: img.naturalWidth, h: img.naturalHeight, ok: img.complete && img.naturalWidth > 0 })),
    // Error outputs and stderr streams both render with the stderr MIME type (isNotice tells gluelab's warnings apart,
    // on the whole text: a stream merges a notice with whatever else the cell wrote to stderr).
    stderr: [...nb.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map((el) => el.innerText.trim()),
    dialogs: [...document.querySelectorAll(".jp-Dialog")].map(text),
    progress: window.__progress,
  };
}

const notebookSel = ".jp-NotebookPanel:not(.lm-mod-hidden)";

/** A new page that records its script errors. */
async function newPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  return { page, pageErrors };
}

/** Opens a notebook in JupyterLab and waits until its kernel is connected and idle. */
async function openNotebook(page, base, token, name) {
  // A workspace of its own per notebook: JupyterLab would otherwise reopen the tabs of the last page (and their kernels).
  const workspace = name.replace(/[^A-Za-z0-9-]/g, "-");
  await page.goto(`${base}/lab/workspaces/${workspace}/tree/${encodeURIComponent(name)}?token=${token}`);
  await page.waitForSelector(`${notebookSel} .jp-Notebook .jp-Cell`, { timeout: 180_000 });
  // The file browser takes a fifth of the width; the notebook gets it all (a click on its open tab folds it).
  const leftTab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current");
  if (await leftTab.count()) await leftTab.first().click();
  await waitKernelIdle(page, 180_000);
  const dialog = await page.$(".jp-Dialog");
  if (dialog) throw new Error(`a dialog opened instead of the kernel: ${(await dialog.innerText()).slice(0, 300)}`);
}

/** Waits until the kernel is connected and idle: the toolbar's execution indicator and the status bar both say so. */
async function waitKernelIdle(page, timeout) {
  await page.waitForFunction((sel) => {
    const ind = document.querySelector(`${sel} .jp-Notebook-ExecutionIndicator`);
    return ind?.getAttribute("data-status") === "idle" && /Java \(gluelab\) \| Idle/.test(document.querySelector("#jp-main-statusbar")?.innerText ?? "");
  }, notebookSel, { timeout, polling: 200 });
}

/** Waits until a code cell shows [*] or a run count: the run the last click asked for has begun. */
async function waitRunStarted(page) {
  await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .jp-CodeCell .jp-InputPrompt`)]
    .some((p) => /\[(\*|\d+)\]/.test(p.innerText)), notebookSel, { timeout: 60_000, polling: 100 });
}

/** The reader's own clicks: a menu of the menu bar, then one of its items. */
async function clickMenu(page, menu, item) {
  await page.click(`#jp-menu-panel .lm-MenuBar-itemLabel:text-is("${menu}")`);
  await page.click(`.lm-Menu .lm-Menu-itemLabel:text-is("${item}")`);
}

/** Waits until no code cell shows [*] and the kernel is idle. */
async function waitAllRun(page, timeout) {
  await page.waitForFunction((sel) => {
    const prompts = [...document.querySelectorAll(`${sel} .jp-CodeCell .jp-InputPrompt`)].map((p) => p.innerText);
    const ind = document.querySelector(`${sel} .jp-Notebook-ExecutionIndicator`);
    return !prompts.some((p) => p.includes("*")) && ind?.getAttribute("data-status") === "idle";
  }, notebookSel, { timeout, polling: 500 });
}

/**
 * A screenshot of the whole notebook: JupyterLab scrolls inside its notebook panel, so the viewport is made as tall as
 * the notebook's content (plus the bars above it) before the page is captured.
 */
async function fullScreenshot(page, file) {
  const height = await page.evaluate((sel) => {
    const scroller = document.querySelector(`${sel} .jp-WindowedPanel-outer`);
    const top = scroller.getBoundingClientRect().top;
    return Math.ceil(top + scroller.scrollHeight + 40);
  }, notebookSel);
  await page.setViewportSize({ width: 1280, height: Math.min(Math.max(height, 900), 32_000) });
  // Lumino lays out again on the resize; wait until the panel no longer scrolls.
  await page.waitForFunction((sel) => {
    const s = document.querySelector(`${sel} .jp-WindowedPanel-outer`);
    return s.scrollHeight <= s.clientHeight + 2;
  }, notebookSel, { timeout: 10_000, polling: 200 }).catch(() => {});
  await page.evaluate((sel) => { document.querySelector(`${sel} .jp-WindowedPanel-outer`).scrollTop = 0; }, notebookSel);
  await page.screenshot({ path: file, fullPage: true });
}

async function closeSessions(base, token) {
  // Free the kernel (a JVM) before the next notebook starts its own.
  const sessions = await (await fetch(`${base}/api/sessions?token=${token}`)).json();
  for (const s of sessions) await fetch(`${base}/api/sessions/${s.id}?token=${token}`, { method: "DELETE" });
}

async function runNotebook(browser, base, token, name) {
  const started = Date.now();
  const opened = await newPage(browser);
  const { page } = opened;
  try {
    await openNotebook(page, base, token, name);
    await page.evaluate(watchProgress);
    // The notebook is the current document once one of its cells is clicked; Run All acts on the current one.
    await page.locator(`${notebookSel} .jp-Cell .jp-InputPrompt`).first().click();
    await clickMenu(page, "Run", "Run All Cells");
    await waitRunStarted(page);
    await waitAllRun(page, timeoutMs);
    // Every image finishes decoding (or fails: a broken one is still reported below) before the page is read.
    await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .jp-OutputArea-output img`)].every((img) => img.complete),
      notebookSel, { timeout: 30_000, polling: 200 }).catch(() => {});
    const seen = await page.evaluate(readPage);
    const shot = path.join(outDir, name.replace(/\.ipynb$/, ".png"));
    await fullScreenshot(page, shot);
    return { name, seconds: (Date.now() - started) / 1000, ...seen, pageErrors: opened.pageErrors, screenshot: shot };
  } catch (e) {
    const shot = path.join(outDir, name.replace(/\.ipynb$/, ".failed.png"));
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    return { name, seconds: (Date.now() - started) / 1000, failure: String(e.message ?? e).split("\n")[0], pageErrors: opened.pageErrors, screenshot: shot };
  } finally {
    await page.close();
    await closeSessions(base, token);
  }
}

/**
 * A stderr output that is only gluelab's own notices about its measurement (a calibration taken on a busy machine,
 * used for this run only): what the analyst must see beside the numbers, not an error. CI's two loaded cores make
 * every fresh calibration busy, so these appear whenever no quiet calibration is cached.
 */
const NOTICE = /^gluelab: (warning: |the cached calibration )/;
function isNotice(output) {
  const lines = output.split("\n").map((l) => l.trim()).filter((l) => l);
  return lines.length > 0 && lines.every((l) => NOTICE.test(l));
}

/** The checks on one notebook; returns what failed, as sentences. */
function problems(r) {
  if (r.failure) return [r.failure];
  const p = [];
  const unrun = r.prompts.map((x, i) => [x, i]).filter(([x]) => !/^\[\d+\]:$/.test(x)).map(([x, i]) => `cell ${i} (${x || "no prompt"})`);
  if (unrun.length) p.push(`code cells that did not run: ${unrun.join(", ")}`);
  const errors = r.stderr.filter((o) => !isNotice(o));
  if (errors.length) p.push(`error output: ${errors.map((e) => e.slice(0, 400)).join(" | ")}`);
  if (r.dialogs.length) p.push(`dialog open: ${r.dialogs.join(" | ")}`);
  const broken = r.images.filter((i) => !i.ok);
  if (broken.length) p.push(`${broken.length} image(s) did not decode`);
  if (r.tables + r.images.length === 0) p.push("neither a table nor a chart rendered");
  return p;
}

// ---- What the whole story leaves behind: one experiment folder, complete ----

/** The gluelab CLI on the installed kernelspec's JVM, flags and classpath (the kernel's argv with another main class). */
function gluelabCommand(...cliArgs) {
  for (const base of (process.env.JUPYTER_PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const spec = path.join(base, "kernels", "gluelab", "kernel.json");
    if (!fs.existsSync(spec)) continue;
    const argv = JSON.parse(fs.readFileSync(spec, "utf8")).argv;
    return [...argv.slice(0, argv.indexOf("gluelab.kernel.KernelMain")), "gluelab.cli.Main", ...cliArgs];
  }
  throw new Error("no gluelab kernelspec on JUPYTER_PATH");
}

/**
 * The experiment folder the notebooks wrote, run in order in JupyterLab as one experiment: plan, devlog, change stack,
 * findings and feedback; a step marker per notebook; a record, a chart, a change, and PR texts each with its chart,
 * which `gluelab pr check` passes. Returns what failed, as sentences.
 */
function experimentProblems(folder, books) {
  if (!fs.existsSync(folder)) return [`the story left no experiment folder ${folder}`];
  const p = [];
  const has = (...parts) => fs.existsSync(path.join(folder, ...parts));
  const list = (dir) => (has(dir) ? fs.readdirSync(path.join(folder, dir)) : []);
  for (const f of ["plan.json", "devlog.md", "stack.json", "findings.md", "feedback.md"]) if (!has(f)) p.push(`${f} missing in ${folder}`);
  const steps = list("steps");
  const unmarked = books.filter((b) => !steps.includes(b.replace(/\.ipynb$/, ".json")));
  if (unmarked.length) p.push(`no step marker for ${unmarked.join(", ")}`);
  if (!list("records").length) p.push("no record published");
  if (!list("charts").some((f) => f.endsWith(".png"))) p.push("no chart in charts/");
  if (has("stack.json") && !JSON.parse(fs.readFileSync(path.join(folder, "stack.json"), "utf8")).stack?.changes?.length) p.push("the stack is empty");
  const prs = list("pr").filter((f) => f.endsWith(".md")).sort().map((f) => path.join(folder, "pr", f));
  if (!prs.length) p.push("no PR text");
  for (const pr of prs) if (!fs.existsSync(pr.replace(/\.md$/, ".png"))) p.push(`no chart beside ${path.basename(pr)}`);
  if (prs.length) {
    const [cmd, ...rest] = gluelabCommand("pr", "check", ...prs);
    const check = spawnSync(cmd, rest, { encoding: "utf8", timeout: 120_000 });
    if (check.status !== 0) p.push(`gluelab pr check failed (${check.status ?? check.signal ?? check.error}): ${`${check.stdout}${check.stderr}`.trim().slice(-1000)}`);
  }
  return p;
}

// ---- The once-per-run checks of the kernel in the front end, in a scratch notebook ----

/** A notebook with one code cell per source, for the front-end checks. */
function scratchNotebook(sources) {
  return {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: "gluelab", display_name: "Java (gluelab)", language: "java" } },
    cells: sources.map((s, i) => ({ cell_type: "code", id: `check-${i}`, metadata: {}, source: s, outputs: [], execution_count: null })),
  };
}

/** The first sentence of the Javadoc on Gluelab's `bench(` method, or null when it has none. */
function benchJavadocSummary() {
  const src = fs.readFileSync(gluelabSource, "utf8");
  const m = src.match(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(?:@\w+\s*)*public\s+\S+\s+bench\s*\(/);
  if (!m) return null;
  const text = m[1].replace(/^\s*\*\s?/gm, " ").replace(/\{@\w+\s+([^}]*)\}/g, "$1").replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim();
  return text.split(/(?<=\.)\s/)[0];
}

let completeReplies = [];

const objectMethods = new Set(["wait", "notify", "notifyAll", "hashCode", "getClass", "equals", "toString", "clone", "finalize"]);

/** Selects a cell by index and puts the cursor at the end of its text. */
async function editCell(page, index) {
  const cell = page.locator(`${notebookSel} .jp-CodeCell`).nth(index);
  await cell.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  return cell;
}

/** Runs the cell at index with Shift+Enter and waits until it has run; returns its output text. */
async function runCell(page, index, timeout = 120_000) {
  const cell = await editCell(page, index);
  await page.keyboard.press("Shift+Enter");
  await page.waitForFunction(([sel, i]) => {
    const c = document.querySelectorAll(`${sel} .jp-CodeCell`)[i];
    return /^\[\d+\]:$/.test(c.querySelector(".jp-InputPrompt").innerText.replace(/\s+/g, ""));
  }, [notebookSel, index], { timeout, polling: 200 });
  return (await cell.locator(".jp-OutputArea").innerText()).trim();
}

/** The kernel messages of one type the page sent or received over its kernel websockets, as text excerpts. */
function recordKernelMessages(page, type) {
  const seen = [];
  page.on("websocket", (ws) => {
    const note = (dir) => (f) => {
      const text = typeof f.payload === "string" ? f.payload : f.payload.toString("latin1");
      if (text.includes(`"msg_type":"${type}"`) || text.includes(`"msg_type": "${type}"`)) seen.push(`${dir} ${text.replace(/[^\x20-\x7e]/g, ".").slice(0, 20_000)}`);
    };
    ws.on("framesent", note("sent"));
    ws.on("framereceived", note("received"));
  });
  return seen;
}

/** The matches of the last complete_reply the page received, in the kernel's order, or null. */
function lastCompleteMatches() {
  for (const frame of [...completeReplies].reverse()) {
    const m = frame.match(/"matches":\s*(\[[^\]]*\])/);
    if (m) try { return JSON.parse(m[1]); } catch { /* cut off */ }
  }
  return null;
}

async function checkCompletion(page) {
  // The receiver's own public API, read from the kernel: the names completion should offer first.
  const api = (await runCell(page, 1)).split(/\s+/).filter(Boolean);
  // Typed, as a reader would: the completer acts on what the editor saw typed.
  await editCell(page, 2);
  await page.keyboard.type("lab.", { delay: 50 });
  const asked = Date.now();
  await page.keyboard.press("Tab");
  // What the reader sees: the items of JupyterLab's completer list, in its order.
  const offered = await page.waitForSelector(".jp-Completer .jp-Completer-item", { state: "visible", timeout: 60_000 })
    .then(() => page.$$eval(".jp-Completer .jp-Completer-item .jp-Completer-match", (els) => els.map((e) => e.innerText.trim())))
    .catch(() => null);
  const seconds = (Date.now() - asked) / 1000;
  await page.keyboard.press("Escape");
  const p = [];
  if (!offered) {
    const reply = lastCompleteMatches();
    return { offered: null, problems: [`Tab after lab. showed no completion list within 60 s (${reply ? `the kernel's complete_reply had ${reply.length} matches` : "no complete_reply reached the page"})`] };
  }
  const names = offered.map((s) => s.replace(/\(.*$/, ""));
  const first = names.slice(0, 5);
  if (!api.length) p.push("the kernel listed no public methods of Gluelab");
  if (first.some((n) => objectMethods.has(n))) p.push(`Object's methods among the first items of the list: ${first.join(", ")}`);
  if (first.some((n) => !api.includes(n))) p.push(`the first items of the list are not all Gluelab's public methods: ${first.join(", ")}`);
  const objectAt = names.findIndex((n) => objectMethods.has(n));
  const lastApi = names.reduce((last, n, i) => (api.includes(n) ? i : last), -1);
  if (objectAt >= 0 && objectAt < lastApi) p.push(`Object's ${names[objectAt]} is listed at ${objectAt + 1}, before Gluelab's own ${names[lastApi]} at ${lastApi + 1}`);
  return { seconds, offered: offered.slice(0, 40), problems: p };
}

async function checkInspection(page) {
  const summary = benchJavadocSummary();
  await editCell(page, 3);
  await page.keyboard.type("lab.bench(", { delay: 50 });
  await page.keyboard.press("Shift+Tab");
  const tip = await page.waitForSelector(".jp-Tooltip", { timeout: 60_000 }).then((t) => t.innerText()).catch(() => "");
  await page.keyboard.press("Escape");
  const norm = (s) => s.replace(/\s+/g, " ").trim();
  const p = [];
  if (!tip) p.push("Shift-Tab on lab.bench( showed no tooltip");
  else if (!summary) p.push(`Gluelab.bench has no Javadoc in ${path.relative(repoRoot, gluelabSource)}; the tooltip showed: ${norm(tip).slice(0, 200)}`);
  else if (!norm(tip).includes(norm(summary))) p.push(`the tooltip on lab.bench( lacks its Javadoc summary "${summary}"; it showed: ${norm(tip).slice(0, 200)}`);
  return { tooltip: norm(tip).slice(0, 400), expected: summary, problems: p };
}

async function checkInterrupt(page) {
  // A cell that would run a minute; interrupted once it runs, it must stop within seconds and the next cell run.
  const cell = await editCell(page, 4);
  await page.keyboard.press("Shift+Enter");
  await page.waitForFunction(([sel, i]) => document.querySelectorAll(`${sel} .jp-CodeCell`)[i].querySelector(".jp-InputPrompt").innerText.includes("*"),
    [notebookSel, 4], { timeout: 60_000, polling: 100 });
  await page.waitForFunction(([sel, i]) => document.querySelectorAll(`${sel} .jp-CodeCell`)[i].innerText.includes("sleeping"),
    [notebookSel, 4], { timeout: 60_000, polling: 100 });
  const t0 = Date.now();
  await clickMenu(page, "Kernel", "Interrupt Kernel");
  const p = [];
  let seconds = null;
  try {
    await page.waitForFunction(([sel, i]) => !document.querySelectorAll(`${sel} .jp-CodeCell`)[i].querySelector(".jp-InputPrompt").innerText.includes("*"),
      [notebookSel, 4], { timeout: 30_000, polling: 100 });
    seconds = (Date.now() - t0) / 1000;
  } catch {
    p.push("the interrupted cell was still running 30 s after Kernel > Interrupt Kernel");
  }
  const next = await runCell(page, 5, 60_000).catch((e) => `(did not run: ${e.message})`);
  if (!next.includes("after interrupt")) p.push(`the cell after the interrupt printed: ${next.slice(0, 200)}`);
  // Read once the next cell has run: output the interrupted cell still produced has arrived by then.
  const out = (await cell.locator(".jp-OutputArea").innerText()).trim();
  if (out.includes("finished")) p.push(`the interrupted cell went on after its loop (printed: ${out.replace(/\s+/g, " ").slice(0, 200)})`);
  return { seconds, output: out.slice(0, 300), next: next.slice(0, 200), problems: p };
}

async function checkRestart(page) {
  await clickMenu(page, "Kernel", "Restart Kernel…");
  await page.click(".jp-Dialog .jp-Dialog-button.jp-mod-accept");
  const p = [];
  // The toolbar passes through restarting/starting before idle: wait for it to leave idle, then come back.
  await page.waitForFunction((sel) => document.querySelector(`${sel} .jp-Notebook-ExecutionIndicator`)?.getAttribute("data-status") !== "idle",
    notebookSel, { timeout: 10_000, polling: 50 }).catch(() => {});
  const t0 = Date.now();
  await waitKernelIdle(page, 180_000).catch(() => p.push("the kernel was not idle 180 s after Kernel > Restart Kernel"));
  const seconds = (Date.now() - t0) / 1000;
  const out = await runCell(page, 6, 120_000).catch((e) => `(did not run: ${e.message})`);
  if (!out.includes("fresh")) p.push(`the cell after the restart printed: ${out.slice(0, 200)}`);
  return { seconds, output: out.slice(0, 200), problems: p };
}

async function frontEndChecks(browser, base, token, workDir) {
  const name = "front-end-checks.ipynb";
  fs.writeFileSync(path.join(workDir, name), JSON.stringify(scratchNotebook([
    'var lab = Gluelab.open("cpu");',
    "java.util.Arrays.stream(Gluelab.class.getMethods()).filter(m -> m.getDeclaringClass() == Gluelab.class && !java.lang.reflect.Modifier.isStatic(m.getModifiers())).map(java.lang.reflect.Method::getName).distinct().sorted().forEach(System.out::println);",
    "",
    "",
    'System.out.println("sleeping"); for (int i = 0; i < 6000; i++) Thread.sleep(100); System.out.println("finished");',
    'System.out.println("after interrupt");',
    'System.out.println("fresh " + (6 * 7));',
  ])));
  const checks = {};
  const { page } = await newPage(browser);
  completeReplies = recordKernelMessages(page, "complete_reply");
  try {
    await openNotebook(page, base, token, name);
    await runCell(page, 0, 180_000);
    for (const [key, check] of [["completion", checkCompletion], ["inspection", checkInspection], ["interrupt", checkInterrupt], ["restart", checkRestart]]) {
      try {
        checks[key] = await check(page);
      } catch (e) {
        checks[key] = { problems: [`${key} check failed: ${String(e.message ?? e).split("\n")[0]}`] };
        await page.screenshot({ path: path.join(outDir, `front-end-${key}.failed.png`) }).catch(() => {});
        await page.keyboard.press("Escape").catch(() => {});
      }
    }
    await page.screenshot({ path: path.join(outDir, "front-end-checks.png"), fullPage: true });
  } catch (e) {
    checks.open = { problems: [String(e.message ?? e).split("\n")[0]] };
    await page.screenshot({ path: path.join(outDir, "front-end-checks.failed.png") }).catch(() => {});
  } finally {
    await page.close();
    await closeSessions(base, token);
  }
  return checks;
}

async function main() {
  const books = fs.readdirSync(notebooksDir).filter((f) => f.endsWith(".ipynb") && (!only || only.has(f))).sort();
  if (books.length === 0) throw new Error(`no notebooks in ${notebooksDir}`);
  if (!process.env.JUPYTER_PATH) throw new Error("JUPYTER_PATH is not set: point it at a folder holding the gluelab kernelspec (bin/gluelab kernel install --jupyter-path DIR)");
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gluelab-browser-"));
  const workDir = path.join(scratch, "notebooks");
  fs.cpSync(notebooksDir, workDir, { recursive: true, filter: (src) => !path.relative(notebooksDir, src).split(path.sep).some((part) => part === ".ipynb_checkpoints" || part === "out") });
  const { server, base, token } = await startServer(workDir, scratch);
  const browser = await chromium.launch({
    executablePath: chromiumPath, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
  const results = [];
  let checks = {};
  // The experiment folder is checked only when every numbered notebook of the story ran (not with --only a part).
  const story = fs.readdirSync(notebooksDir).filter((f) => /^\d\d-.*\.ipynb$/.test(f));
  const wholeStory = story.length > 0 && story.every((f) => books.includes(f));
  let experiment = null;
  try {
    for (const name of books) {
      const r = await runNotebook(browser, base, token, name);
      r.problems = problems(r);
      results.push(r);
      const what = r.failure ? "" : `${r.cells} code cells, ${r.tables} tables, ${r.images.length} images, progress bars ${r.progress.seen} (live ${r.progress.live})`;
      console.log(`${r.problems.length ? "FAIL" : "ok  "} ${name} ${r.seconds.toFixed(1)} s ${what}`);
      for (const p of r.problems) console.log(`     ${p}`);
      if (!r.failure) for (const n of r.stderr.filter(isNotice)) console.log(`     (gluelab's notice, shown to the analyst: ${n.split("\n")[0].slice(0, 200)})`);
      const counts = new Map();
      for (const e of r.pageErrors) counts.set(e, (counts.get(e) ?? 0) + 1);
      for (const [e, n] of counts) console.log(`     (page script error${n > 1 ? `, ${n} times` : ""}: ${e})`);
    }
    // Run in order, the notebooks are one experiment ("demo", their parameter), which lands under the notebooks' own
    // folder: no repository above it, and GLUELAB_HOME / GLUELAB_EXPERIMENTS are not passed to the server.
    if (wholeStory) experiment = experimentProblems(path.join(workDir, "out", "experiments", "demo"), books);
    checks = await frontEndChecks(browser, base, token, workDir);
    for (const [key, c] of Object.entries(checks)) {
      console.log(`${c.problems.length ? "FAIL" : "ok  "} front end: ${key}`);
      for (const p of c.problems) console.log(`     ${p}`);
    }
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  // Across the story: tables and charts rendered, and long work showed a progress bar while it ran.
  const storyProblems = [];
  const done = results.filter((r) => !r.failure);
  if (!done.some((r) => r.tables > 0)) storyProblems.push("no notebook rendered an HTML table");
  if (!done.some((r) => r.images.length > 0)) storyProblems.push("no notebook rendered a chart image");
  if (!done.some((r) => r.progress.live > 0)) storyProblems.push("no progress bar was seen while a cell ran");
  if (experiment) {
    console.log(`${experiment.length ? "FAIL" : "ok  "} the story's experiment folder (plan, devlog, markers, records, charts, stack, PRs, pr check)`);
    storyProblems.push(...experiment.map((e) => `experiment folder: ${e}`));
  } else {
    console.log("     (experiment folder not checked: only part of the story ran)");
  }
  for (const s of storyProblems) console.log(`FAIL ${s}`);
  fs.writeFileSync(path.join(outDir, "summary.json"), JSON.stringify({ notebooks: results, frontEnd: checks, story: storyProblems }, null, 2));
  const failedBooks = results.filter((r) => r.problems.length).length;
  const failedChecks = Object.values(checks).filter((c) => c.problems.length).length;
  console.log(`browser: ${results.length - failedBooks} of ${results.length} notebooks and ${Object.keys(checks).length - failedChecks} of ${Object.keys(checks).length} front-end checks passed in JupyterLab (chromium)${storyProblems.length ? `, ${storyProblems.length} story check(s) FAILED` : ""}; screenshots in ${outDir}`);
  process.exit(failedBooks + failedChecks + storyProblems.length ? 1 : 0);
}

main().catch((e) => {
  console.error(`browser test: ${e.stack ?? e}`);
  process.exit(1);
});
