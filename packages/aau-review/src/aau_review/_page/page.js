// aau review serve: the labelling page. Talks only to its own server (api/state,
// api/units/ID, api/labels/ID, relative to the page's URL, which carries the token).
// Every value is put on the page as text (textContent), never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { rater: "", units: [], labels: {}, categories: [], index: 0, unit: null,
                shownAt: null, pending: {}, saving: Promise.resolve() };

function json(value) { return JSON.stringify(value, null, 2); }

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new Error("the server does not answer (is aau review serve still running?)");
  }
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) { throw new Error(body.error || response.statusText); }
  return body;
}

function say(message, isError) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("error", Boolean(isError));
}

// Time on screen: counted while the page is visible, per unit, until the unit's next save.
function stopClock() {
  if (state.unit && state.shownAt !== null) {
    const id = state.unit.unit_id;
    state.pending[id] = (state.pending[id] || 0) + (performance.now() - state.shownAt) / 1000;
  }
  state.shownAt = null;
}
function startClock() {
  if (document.visibilityState === "visible") { state.shownAt = performance.now(); }
}
function takeSeconds(id) {
  stopClock();
  const seconds = state.pending[id] || 0;
  state.pending[id] = 0;
  startClock();
  return Math.round(seconds * 1000) / 1000;
}

function showProgress() {
  const done = state.units.filter((id) => id in state.labels).length;
  const bar = $("progress");
  bar.max = Math.max(state.units.length, 1);
  bar.value = done;
  $("progress-text").textContent = `${done} of ${state.units.length} labelled`;
}

function buildCategories() {
  const box = $("categories");
  state.categories.forEach((category, i) => {
    const span = document.createElement("span");
    span.className = "choice";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.id = `category-${category.id}`;
    input.value = category.id;
    input.addEventListener("change", () => saveIfVerdict());
    const label = document.createElement("label");
    label.htmlFor = input.id;
    label.append(`${category.id} `);
    if (i < 9) {
      const kbd = document.createElement("kbd");
      kbd.textContent = String(i + 1);
      label.append(kbd);
    }
    span.append(input, label);
    if (category.description) {
      // visible text, and the check box's accessible description (read after its name)
      const description = document.createElement("span");
      description.className = "description";
      description.id = `category-${category.id}-description`;
      description.textContent = category.description;
      input.setAttribute("aria-describedby", description.id);
      span.append(description);
    }
    box.append(span);
  });
}

function formLabel() {
  const checked = document.querySelector("input[name=verdict]:checked");
  const categories = [...document.querySelectorAll("#categories input:checked")]
    .map((input) => input.value);
  return { verdict: checked ? checked.value : null, categories, note: $("note").value.trim() };
}

function fillForm(label) {
  document.querySelectorAll("input[name=verdict]").forEach((input) => {
    input.checked = Boolean(label) && input.value === label.verdict;
  });
  document.querySelectorAll("#categories input").forEach((input) => {
    input.checked = Boolean(label) && label.categories.includes(input.value);
  });
  $("note").value = (label && label.note) || "";
}

async function show(index) {
  stopClock();
  const id = state.units[index];
  say("");
  let unit;
  try {
    unit = await api(`api/units/${encodeURIComponent(id)}`);
  } catch (err) {
    say(`Could not load ${id}: ${err.message}`, true);
    return;
  }
  state.index = index;
  state.unit = unit;
  const n = state.units.length;
  $("unit-heading").textContent = `Unit ${index + 1} of ${n} (${unit.unit_id})`;
  const labelled = state.labels[id] ? `labelled ${state.labels[id].verdict}` : "not labelled yet";
  $("unit-meta").textContent = `Scenario ${unit.scenario_id}, repeat ${unit.repeat}` +
    (unit.error ? `; the answer was refused: ${unit.error}` : "") + `; ${labelled}`;
  const response = { ...unit.response };
  const calls = response.tool_calls || [];
  delete response.tool_calls;
  $("input").textContent = json(unit.input);
  $("answer").textContent = json(response);
  $("tool-calls").textContent = calls.length ? json(calls) : "(no tool calls)";
  const unblinded = unit.expected !== undefined || unit.scores !== undefined;
  $("unblinded").hidden = !unblinded;
  $("expected").textContent = unblinded ?
    json({ expected: unit.expected, scores: unit.scores }) : "";
  fillForm(state.labels[id]);
  $("previous").disabled = index === 0;
  $("next").disabled = index === n - 1;
  document.title = `aau review: unit ${index + 1} of ${n}`;
  history.replaceState(null, "", `#${id}`);
  startClock();
}

function save() {
  const id = state.unit.unit_id;
  const label = formLabel();
  if (!label.verdict) { return state.saving; }
  const body = { verdict: label.verdict, categories: label.categories,
                 time_spent_s: takeSeconds(id) };
  if (label.note) { body.note = label.note; }
  say(`Saving ${id}…`);
  // one save at a time, in the order they were made
  state.saving = state.saving.then(async () => {
    try {
      const saved = await api(`api/labels/${encodeURIComponent(id)}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
      state.labels[id] = saved.label;
      showProgress();
      const cats = saved.label.categories.length ? ` (${saved.label.categories.join(", ")})` : "";
      const all = saved.labelled === saved.total ? ` All ${saved.total} units labelled.` : "";
      say(`Saved ${id}: ${saved.label.verdict}${cats}. ${saved.labelled} of ${saved.total} ` +
          `labelled.${all}`);
      if (state.unit && state.unit.unit_id === id) {
        $("unit-meta").textContent = $("unit-meta").textContent
          .replace(/; (labelled \w+|not labelled yet)$/, `; labelled ${saved.label.verdict}`);
      }
    } catch (err) {
      state.pending[id] = (state.pending[id] || 0) + body.time_spent_s;
      say(`Not saved ${id}: ${err.message}`, true);
    }
  });
  return state.saving;
}

function saveIfVerdict() { if (formLabel().verdict) { save(); } }

// a pass names no failure category (the labels schema's rule): choosing pass clears them
function clearCategoriesOnPass(value) {
  if (value !== "pass") { return; }
  document.querySelectorAll("#categories input").forEach((box) => { box.checked = false; });
}

function setVerdict(value) {
  const input = $(`verdict-${value}`);
  input.checked = true;
  clearCategoriesOnPass(value);
  save();
}

function toggleCategory(i) {
  const inputs = document.querySelectorAll("#categories input");
  if (i < inputs.length) {
    inputs[i].checked = !inputs[i].checked;
    saveIfVerdict();
  }
}

function go(index) {
  if (index >= 0 && index < state.units.length && index !== state.index) { show(index); }
}

function nextUnlabelled() {
  const n = state.units.length;
  for (let step = 1; step <= n; step += 1) {
    const i = (state.index + step) % n;
    if (!(state.units[i] in state.labels)) { go(i); return; }
  }
  say(`All ${n} units are labelled.`);
}

function onKey(event) {
  const target = event.target;
  if (target.id === "note") {
    if (event.key === "Escape") { target.blur(); $("unit-heading").focus(); }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) { return; }
  const onControl = target.tagName === "INPUT" || target.tagName === "BUTTON";
  // Caps Lock on: a letter without Shift still means its shortcut
  const key = event.key.length === 1 && !event.shiftKey ? event.key.toLowerCase() : event.key;
  const actions = {
    p: () => setVerdict("pass"), f: () => setVerdict("fail"), u: () => setVerdict("unsure"),
    n: () => go(state.index + 1), b: () => go(state.index - 1), N: () => nextUnlabelled(),
    t: () => $("note").focus(),
  };
  if (!onControl) {
    actions.ArrowRight = () => go(state.index + 1);
    actions.ArrowLeft = () => go(state.index - 1);
  }
  if (key in actions) {
    event.preventDefault();
    actions[key]();
  } else if (/^[1-9]$/.test(key)) {
    event.preventDefault();
    toggleCategory(Number(key) - 1);
  }
}

async function start() {
  let info;
  try {
    info = await api("api/state");
  } catch (err) {
    say(`Could not start: ${err.message}`, true);
    return;
  }
  state.rater = info.rater;
  state.units = info.units;
  state.labels = info.labels;
  state.categories = info.taxonomy.categories;
  $("suite").textContent = info.suite_id;
  $("rater").textContent = info.rater;
  buildCategories();
  showProgress();
  document.querySelectorAll("input[name=verdict]").forEach((input) => {
    input.addEventListener("change", () => { clearCategoriesOnPass(input.value); save(); });
  });
  $("note").addEventListener("change", () => saveIfVerdict());
  $("previous").addEventListener("click", () => go(state.index - 1));
  $("next").addEventListener("click", () => go(state.index + 1));
  $("next-unlabelled").addEventListener("click", () => nextUnlabelled());
  document.addEventListener("keydown", onKey);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { startClock(); } else { stopClock(); }
  });
  if (!state.units.length) { say("No unit is assigned to you in this pack."); return; }
  const fromHash = state.units.indexOf(location.hash.slice(1));
  const firstOpen = state.units.findIndex((id) => !(id in state.labels));
  await show(fromHash >= 0 ? fromHash : Math.max(firstOpen, 0));
  const done = state.units.filter((id) => id in state.labels).length;
  if (done) { say(`Resumed: ${done} of ${state.units.length} already labelled.`); }
}

start();
