// A newcomer's first hour, checked in a real front end: Debian's classic Jupyter Notebook server
// with the gluelab kernelspec, Debian's headless chromium driven by playwright-core. Every notebook
// in the given folder is opened (a copy, so autosave never touches the repository), run with
// Cell > Run All, and checked for what a reader must see: rendered HTML tables, chart images that
// decode, a live progress bar somewhere in the story, and no error output. A full-page screenshot of
// each notebook is kept.
//
//   JUPYTER_PATH=DIR node run-all.mjs --notebooks notebooks --out out/browser [--timeout 600]
//
// JUPYTER_PATH must hold the gluelab kernelspec (bin/test installs it there). Exit status 0 only
// when every notebook passed.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const args = parseArgs(process.argv.slice(2));
const notebooksDir = path.resolve(args.notebooks ?? "notebooks");
const outDir = path.resolve(args.out ?? "out/browser");
const timeoutMs = 1000 * Number(args.timeout ?? 600);
const chromiumPath = args.chromium ?? "/usr/bin/chromium";
const jupyterCmd = args.jupyter ?? "jupyter-notebook";

function parseArgs(argv) {
  const known = new Set(["notebooks", "out", "timeout", "chromium", "jupyter"]);
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "");
    if (!known.has(key) || argv[i + 1] === undefined) {
      console.error(`run-all.mjs: unknown or incomplete option '${argv[i]}'; options: --notebooks DIR --out DIR --timeout S --chromium PATH --jupyter CMD`);
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

/** The port the notebook server bound, from the server info file it writes once listening (nbserver-PID.json), or null. */
function boundPort(runtimeDir) {
  for (const f of fs.existsSync(runtimeDir) ? fs.readdirSync(runtimeDir) : []) {
    if (!/^nbserver-\d+\.json$/.test(f)) continue;
    try {
      return JSON.parse(fs.readFileSync(path.join(runtimeDir, f), "utf8")).port ?? null;
    } catch { /* still being written */ }
  }
  return null;
}

/**
 * Starts the notebook server in its own Jupyter dirs; resolves once its API answers. The free port is only a
 * starting point: another process may take it before the server binds, so the server tries the next ones itself
 * (--port-retries) and the port it bound is read back from its server info file.
 */
async function startServer(workDir, scratch) {
  const port = await freePort();
  const token = randomBytes(16).toString("hex");
  const runtimeDir = path.join(scratch, "runtime");
  const env = {
    ...process.env,
    JUPYTER_CONFIG_DIR: path.join(scratch, "config"),
    JUPYTER_DATA_DIR: path.join(scratch, "data"),
    JUPYTER_RUNTIME_DIR: runtimeDir,
  };
  const log = fs.openSync(path.join(outDir, "jupyter-server.log"), "w");
  const server = spawn(jupyterCmd, ["--no-browser", "--allow-root", "--ip=127.0.0.1", `--port=${port}`, "--port-retries=50",
    `--NotebookApp.token=${token}`, `--notebook-dir=${workDir}`], { env, stdio: ["ignore", log, log] });
  let exited = null;
  server.on("exit", (code) => { exited = code; });
  // Two minutes: the server starts in seconds, but a loaded 2-core CI machine can take far longer.
  for (let i = 0; i < 1200; i++) {
    if (exited !== null) throw new Error(`${jupyterCmd} exited with ${exited}; see ${path.join(outDir, "jupyter-server.log")}`);
    const bound = boundPort(runtimeDir);
    if (bound !== null) {
      const base = `http://127.0.0.1:${bound}`;
      try {
        const r = await fetch(`${base}/api/status?token=${token}`);
        if (r.ok) return { server, base, token };
      } catch { /* not answering yet */ }
    }
    await sleep(100);
  }
  server.kill("SIGTERM");
  throw new Error(`${jupyterCmd} did not answer within 120 s; see ${path.join(outDir, "jupyter-server.log")}`);
}

/** Records, inside the page, every progress bar that appears or changes while cells run. */
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
  }).observe(document.querySelector("#notebook-container"), { childList: true, subtree: true });
}

/** What the reader sees once the run ended: per code cell its prompt, and the outputs by kind. */
function readPage() {
  const cells = [...document.querySelectorAll("#notebook-container .cell.code_cell")];
  const text = (el) => el.innerText.trim().slice(0, 400);
  return {
    cells: cells.length,
    prompts: cells.map((c) => c.querySelector(".input_prompt")?.innerText.replace(/\s+/g, "") ?? ""),
    tables: document.querySelectorAll(".output_area .output_html table, .output_area .rendered_html table").length,
    images: [...document.querySelectorAll(".output_area img")].map((img) => ({ w: img.naturalWidth, h: img.naturalHeight, ok: img.complete && img.naturalWidth > 0 })),
    errors: [...document.querySelectorAll(".output_area .output_error")].map(text),
    stderr: [...document.querySelectorAll(".output_area .output_stderr")].map(text),
    dialogs: [...document.querySelectorAll(".modal-dialog")].filter((d) => d.offsetParent !== null).map(text),
    progress: window.__progress,
  };
}

async function runNotebook(browser, base, token, name) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const started = Date.now();
  try {
    await page.goto(`${base}/notebooks/${encodeURIComponent(name)}?token=${token}`);
    await page.waitForFunction(() => window.Jupyter?.notebook?.kernel?.is_connected?.() && !document.querySelector("#kernel_indicator_icon.kernel_busy_icon"),
      null, { timeout: 180_000 });
    const dialog = await page.$(".modal-dialog");
    if (dialog && await dialog.isVisible()) throw new Error(`a dialog opened instead of the kernel: ${(await dialog.innerText()).slice(0, 300)}`);
    await page.evaluate(watchProgress);
    // The reader's own clicks: the Cell menu, then Run All.
    await page.click("#menubar a.dropdown-toggle:text-is('Cell')");
    await page.click("#run_all_cells > a");
    await page.waitForFunction(() => {
      const prompts = [...document.querySelectorAll("#notebook-container .code_cell .input_prompt")].map((p) => p.innerText);
      return !prompts.some((p) => p.includes("*")) && document.querySelector("#kernel_indicator_icon.kernel_idle_icon");
    }, null, { timeout: timeoutMs, polling: 500 });
    // Let the last display updates settle, and every image finish decoding (or fail: a broken one is still
    // reported below) before reading the page: a fixed pause alone is too short for a loaded machine.
    await sleep(500);
    await page.waitForFunction(() => [...document.querySelectorAll(".output_area img")].every((img) => img.complete),
      null, { timeout: 30_000, polling: 200 }).catch(() => {});
    const seen = await page.evaluate(readPage);
    const shot = path.join(outDir, name.replace(/\.ipynb$/, ".png"));
    await page.screenshot({ path: shot, fullPage: true });
    return { name, seconds: (Date.now() - started) / 1000, ...seen, pageErrors, screenshot: shot };
  } catch (e) {
    const shot = path.join(outDir, name.replace(/\.ipynb$/, ".failed.png"));
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    return { name, seconds: (Date.now() - started) / 1000, failure: String(e.message ?? e), pageErrors, screenshot: shot };
  } finally {
    await page.close();
    // Free the kernel (a JVM) before the next notebook starts its own.
    const sessions = await (await fetch(`${base}/api/sessions?token=${token}`)).json();
    for (const s of sessions) await fetch(`${base}/api/sessions/${s.id}?token=${token}`, { method: "DELETE" });
  }
}

/** The checks on one notebook; returns what failed, as sentences. */
function problems(r) {
  if (r.failure) return [r.failure];
  const p = [];
  const unrun = r.prompts.map((x, i) => [x, i]).filter(([x]) => !/^In\[\d+\]:$/.test(x)).map(([x, i]) => `cell ${i} (${x || "no prompt"})`);
  if (unrun.length) p.push(`code cells that did not run: ${unrun.join(", ")}`);
  if (r.errors.length) p.push(`error output: ${r.errors.join(" | ")}`);
  if (r.stderr.length) p.push(`stderr output: ${r.stderr.join(" | ")}`);
  if (r.dialogs.length) p.push(`dialog open: ${r.dialogs.join(" | ")}`);
  const broken = r.images.filter((i) => !i.ok);
  if (broken.length) p.push(`${broken.length} image(s) did not decode`);
  if (r.tables + r.images.length === 0) p.push("neither a table nor a chart rendered");
  return p;
}

async function main() {
  const books = fs.readdirSync(notebooksDir).filter((f) => f.endsWith(".ipynb")).sort();
  if (books.length === 0) throw new Error(`no notebooks in ${notebooksDir}`);
  if (!process.env.JUPYTER_PATH) throw new Error("JUPYTER_PATH is not set: point it at a folder holding the gluelab kernelspec (bin/gluelab kernel install --jupyter-path DIR)");
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gluelab-browser-"));
  const workDir = path.join(scratch, "notebooks");
  fs.cpSync(notebooksDir, workDir, { recursive: true, filter: (src) => !src.includes(".ipynb_checkpoints") });
  const { server, base, token } = await startServer(workDir, scratch);
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  const results = [];
  try {
    for (const name of books) {
      const r = await runNotebook(browser, base, token, name);
      r.problems = problems(r);
      results.push(r);
      const what = r.failure ? "" : `${r.cells} code cells, ${r.tables} tables, ${r.images.length} images, progress bars ${r.progress.seen} (live ${r.progress.live})`;
      console.log(`${r.problems.length ? "FAIL" : "ok  "} ${name} ${r.seconds.toFixed(1)} s ${what}`);
      for (const p of r.problems) console.log(`     ${p}`);
      for (const e of r.pageErrors) console.log(`     (page script error: ${e})`);
    }
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  // Across the story: tables and charts rendered, and long work showed a progress bar while it ran.
  const story = [];
  const done = results.filter((r) => !r.failure);
  if (!done.some((r) => r.tables > 0)) story.push("no notebook rendered an HTML table");
  if (!done.some((r) => r.images.length > 0)) story.push("no notebook rendered a chart image");
  if (!done.some((r) => r.progress.live > 0)) story.push("no progress bar was seen while a cell ran");
  for (const s of story) console.log(`FAIL ${s}`);
  fs.writeFileSync(path.join(outDir, "summary.json"), JSON.stringify(results, null, 2));
  const failed = results.filter((r) => r.problems.length).length + story.length;
  console.log(`browser: ${results.length - results.filter((r) => r.problems.length).length} of ${results.length} notebooks passed in chromium; screenshots in ${outDir}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`browser test: ${e.stack ?? e}`);
  process.exit(1);
});
