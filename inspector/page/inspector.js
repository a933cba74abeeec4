// The amc inspector's page: the device's screen with its elements outlined, the element tree,
// the selected element's attributes and unique selectors, and the actions. Served by
// amc.inspector.server; it loads nothing from anywhere else. Text from the device is only
// ever put into the page as text (textContent), never as markup. Every request carries the
// session's token, which the server wrote into this page's <meta name="amc-token">; the server
// refuses any /api/ request without it.
"use strict";

const state = { screen: null, selected: null, busy: false, pictureUrl: null };
const $ = (id) => document.getElementById(id);
const TOKEN = document.querySelector('meta[name="amc-token"]').content;

function shortType(type) {
  return type.startsWith("XCUIElementType") ? type.slice(15) : type.split(".").pop();
}

function describe(el) {
  const parts = [shortType(el.type)];
  const text = el.text || el.label || el.value;
  if (text) parts.push(JSON.stringify(text.length > 40 ? text.slice(0, 39) + "…" : text));
  if (el.id) parts.push("id=" + (el.id.includes(":id/") ? el.id.split(":id/")[1] : el.id));
  return parts.join(" ");
}

function showError(error) {
  const box = $("error");
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = error.kind + ": " + error.message + (error.hint ? " (hint: " + error.hint + ")" : "");
}

async function call(method, path, body) {
  const options = { method, headers: { "X-Amc-Token": TOKEN } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const reply = await fetch(path, options);
  const data = await reply.json();
  if (!reply.ok) throw data.error || { kind: "HTTP " + reply.status, message: reply.statusText };
  return data;
}

function setBusy(busy, words) {
  state.busy = busy;
  document.querySelectorAll("button").forEach((b) => { b.disabled = busy; });
  $("status").textContent = busy ? words : "";
}

function percent(value, whole) {
  return (100 * value / whole).toFixed(3) + "%";
}

function renderOverlay(screen) {
  const overlay = $("overlay");
  overlay.replaceChildren();
  const [w, h] = screen.window;
  if (!w || !h) return;
  for (const el of screen.elements) {
    const [l, t, r, b] = el.bounds;
    if (!el.visible || r <= l || b <= t || (l <= 0 && t <= 0 && r >= w && b >= h)) continue;
    const box = document.createElement("div");
    box.className = "box";
    box.dataset.ref = String(el.ref);
    box.style.left = percent(Math.max(0, l), w);
    box.style.top = percent(Math.max(0, t), h);
    box.style.width = percent(Math.min(w, r) - Math.max(0, l), w);
    box.style.height = percent(Math.min(h, b) - Math.max(0, t), h);
    overlay.appendChild(box);
  }
}

function renderTree(screen) {
  const lists = new Map();
  const root = $("tree");
  root.replaceChildren();
  for (const el of screen.elements) {
    const item = document.createElement("li");
    item.setAttribute("role", "treeitem");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.ref = String(el.ref);
    button.textContent = describe(el);
    if (!el.visible) button.classList.add("hidden-element");
    button.addEventListener("click", () => select(el.ref));
    item.appendChild(button);
    if (el.children) {
      const list = document.createElement("ul");
      list.setAttribute("role", "group");
      item.appendChild(list);
      lists.set(el.ref, list);
    }
    (el.parent === null ? root : lists.get(el.parent) || root).appendChild(item);
  }
  $("count").textContent = "(" + screen.elements.length + ")";
}

function renderDraft(screen) {
  const pane = $("draft-pane");
  if (!screen.draft) {
    pane.hidden = true;
    return;
  }
  pane.hidden = false;
  $("draft-path").textContent = screen.draft.path || "(not saved)";
  $("draft-steps").textContent = String(screen.draft.steps);
  $("draft").textContent = screen.draft.text;
}

// The picture is fetched with the token (an <img src> could not send it) and shown from a blob.
async function loadPicture(url, version) {
  const reply = await fetch(url, { headers: { "X-Amc-Token": TOKEN } });
  if (!reply.ok || !state.screen || state.screen.version !== version) return;
  const blob = URL.createObjectURL(await reply.blob());
  if (state.pictureUrl) URL.revokeObjectURL(state.pictureUrl);
  state.pictureUrl = blob;
  $("picture").src = blob;
}

function render(screen) {
  state.screen = screen;
  state.selected = null;
  $("device").textContent =
    screen.platform + " " + screen.device + " via " + screen.backend + " · app " + (screen.app || "unknown") +
    " · " + screen.window[0] + "×" + screen.window[1] + " · screen " + screen.version;
  const picture = $("picture");
  const problem = $("picture-error");
  if (state.pictureUrl) URL.revokeObjectURL(state.pictureUrl);
  state.pictureUrl = null;
  if (screen.picture.url) {
    loadPicture(screen.picture.url, screen.version);
    picture.hidden = false;
    problem.hidden = true;
  } else {
    picture.removeAttribute("src");
    problem.hidden = false;
    problem.textContent = "No picture: " + (screen.picture.error || "the device sent none");
  }
  renderOverlay(screen);
  renderTree(screen);
  renderDraft(screen);
  $("detail").hidden = true;
  $("selectors").replaceChildren();
  $("attributes").replaceChildren();
  $("none-selected").hidden = false;
}

function mark(ref) {
  document.querySelectorAll(".selected").forEach((node) => node.classList.remove("selected"));
  document.querySelectorAll('[data-ref="' + ref + '"]').forEach((node) => node.classList.add("selected"));
  const button = document.querySelector('#tree button[data-ref="' + ref + '"]');
  if (button) button.scrollIntoView({ block: "nearest" });
}

function renderDetail(detail) {
  const table = $("attributes");
  table.replaceChildren();
  const attributes = { ...detail.attributes };
  const raw = attributes.raw || {};
  delete attributes.raw;
  const rows = Object.entries(attributes).concat(Object.entries(raw).map(([k, v]) => ["raw " + k, v]));
  for (const [name, value] of rows) {
    const row = table.insertRow();
    const th = document.createElement("th");
    th.textContent = name;
    row.appendChild(th);
    row.insertCell().textContent = typeof value === "string" ? value : JSON.stringify(value);
  }
  const list = $("selectors");
  list.replaceChildren();
  if (!detail.selectors.length) {
    const item = document.createElement("li");
    item.textContent = "none: no selector finds this element alone";
    list.appendChild(item);
  }
  for (const suggestion of detail.selectors) {
    const item = document.createElement("li");
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = suggestion.kind;
    const code = document.createElement("code");
    code.className = "selector";
    code.textContent = suggestion.yaml;
    code.title = "as a flow step: " + suggestion.step;
    item.append(kind, code);
    list.appendChild(item);
  }
  $("detail").hidden = false;
  $("none-selected").hidden = true;
}

async function select(ref) {
  if (!state.screen) return;
  state.selected = ref;
  mark(ref);
  try {
    const detail = await call("GET", "/api/element?v=" + state.screen.version + "&ref=" + ref);
    if (state.selected === ref) renderDetail(detail);
    showError(null);
  } catch (error) {
    showError(error);
  }
}

function elementAt(x, y) {
  let best = null;
  for (const el of state.screen.elements) {
    const [l, t, r, b] = el.bounds;
    if (!el.visible || x < l || x >= r || y < t || y >= b) continue;
    const area = (r - l) * (b - t);
    if (best === null || area <= best.area) best = { ref: el.ref, area };
  }
  return best === null ? null : best.ref;
}

function pointer(event) {
  const rect = $("picture").getBoundingClientRect();
  const [w, h] = state.screen.window;
  return [((event.clientX - rect.left) / rect.width) * w, ((event.clientY - rect.top) / rect.height) * h];
}

async function act(words, path, body) {
  if (state.busy || !state.screen) return;
  setBusy(true, words + "…");
  try {
    render(await call("POST", path, { v: state.screen.version, ...body }));
    showError(null);
  } catch (error) {
    showError(error);
    try {
      render(await call("GET", "/api/screen")); // what the device shows after the failed action
    } catch (ignored) {
      // the error above already says what went wrong
    }
  } finally {
    setBusy(false, "");
  }
}

function wire() {
  $("frame").addEventListener("click", (event) => {
    if (!state.screen) return;
    const [x, y] = pointer(event);
    const ref = elementAt(x, y);
    if (ref !== null) select(ref);
  });
  $("frame").addEventListener("mousemove", (event) => {
    if (!state.screen) return;
    const [x, y] = pointer(event);
    const ref = elementAt(x, y);
    document.querySelectorAll("#overlay .hover").forEach((node) => node.classList.remove("hover"));
    if (ref !== null) {
      const box = document.querySelector('#overlay [data-ref="' + ref + '"]');
      if (box) box.classList.add("hover");
    }
  });
  $("refresh").addEventListener("click", () => act("looking", "/api/refresh", {}));
  $("back").addEventListener("click", () => act("going back", "/api/back", {}));
  $("swipe-up").addEventListener("click", () => act("swiping", "/api/swipe", { direction: "up" }));
  $("swipe-down").addEventListener("click", () => act("swiping", "/api/swipe", { direction: "down" }));
  $("tap").addEventListener("click", () => {
    if (state.selected !== null) act("tapping", "/api/tap", { ref: state.selected });
  });
  const type = () => {
    const body = { text: $("text").value };
    if (state.selected !== null) body.ref = state.selected;
    act("typing", "/api/type", body).then(() => { $("text").value = ""; });
  };
  $("type").addEventListener("click", type);
  $("check-app").addEventListener("click", () => act("checking the app", "/api/check", { kind: "app" }));
  for (const kind of ["shown", "text"]) {
    $("check-" + kind).addEventListener("click", () => {
      if (state.selected !== null) act("checking", "/api/check", { kind, ref: state.selected });
    });
  }
  $("text").addEventListener("keydown", (event) => { if (event.key === "Enter") type(); });
}

async function start() {
  wire();
  setBusy(true, "loading…");
  try {
    render(await call("GET", "/api/screen"));
  } catch (error) {
    showError(error);
  } finally {
    setBusy(false, "");
  }
}

document.addEventListener("DOMContentLoaded", start);
