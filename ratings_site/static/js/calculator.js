// Progressive enhancement for the calculator page: the form works without this file.
// With it, rows are added and removed in place and the result updates as you type, by
// posting the same form in the background and swapping in the fragment the server renders
// (one renderer, so the live result and the plain form post can never disagree).
(function () {
  "use strict";
  const form = document.getElementById("calculator-form");
  if (!form) return;
  const result = document.getElementById("result");
  const tbody = document.querySelector("#games-table tbody");
  const template = document.getElementById("game-row-template");
  const total = form.querySelector("input[name='games-TOTAL_FORMS']");
  const kChoice = form.querySelector("[name='k_choice']");
  const customK = form.querySelector(".field-custom_k");
  const details = document.getElementById("player-details");
  // The page's language: the template writes the translated label (no inline script).
  const removeLabel = document.getElementById("games-table").dataset.removeLabel || "Remove game %(number)s";
  let timer = null;
  let inflight = null;

  function renumber() {
    const rows = tbody.querySelectorAll("tr.game-row");
    rows.forEach(function (row, index) {
      row.querySelector("td").textContent = String(index + 1);
      row.querySelectorAll("input, select").forEach(function (input) {
        input.name = input.name.replace(/games-(\d+|__prefix__)-/, "games-" + index + "-");
        input.id = input.id.replace(/games-(\d+|__prefix__)-/, "games-" + index + "-");
      });
      const remove = row.querySelector(".remove-game");
      remove.hidden = rows.length < 2;
      remove.setAttribute("aria-label", removeLabel.replace("%(number)s", String(index + 1)));
    });
    total.value = String(rows.length);
  }

  function toggleK() {
    const choice = kChoice.value;
    customK.hidden = choice !== "custom";
    details.hidden = choice !== "auto";
  }

  async function update() {
    if (inflight) inflight.abort();
    inflight = new AbortController();
    const body = new FormData(form);
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: body,
        headers: { "X-Fragment": "result" },
        signal: inflight.signal,
        credentials: "same-origin",
      });
      result.innerHTML = await response.text();
      result.dataset.state = response.ok ? "ok" : "invalid";
      markErrors();
    } catch (error) {
      if (error.name !== "AbortError") result.dataset.state = "offline";
    }
  }

  // Mark the fields the server found in error, as the page without JavaScript does:
  // aria-invalid, the message beside the field, and the field described by it.
  function markErrors() {
    form.querySelectorAll("[aria-invalid='true']").forEach(function (input) {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    });
    form.querySelectorAll(".error.live").forEach(function (note) { note.remove(); });
    result.querySelectorAll("#error-list a[data-field]").forEach(function (link) {
      const input = document.getElementById(link.dataset.field);
      if (!input) return;
      const note = document.createElement("span");
      note.className = "error live";
      note.id = link.dataset.field + "-error";
      note.textContent = " " + link.dataset.message;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", note.id);
      input.insertAdjacentElement("afterend", note);
    });
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, 200);
  }

  document.getElementById("add-game").addEventListener("click", function (event) {
    event.preventDefault();
    const fragment = template.content.cloneNode(true);
    tbody.appendChild(fragment);
    renumber();
    const last = tbody.querySelector("tr.game-row:last-child input");
    if (last) last.focus();
  });

  tbody.addEventListener("click", function (event) {
    const button = event.target.closest(".remove-game");
    if (!button) return;
    button.closest("tr").remove();
    renumber();
    schedule();
  });

  form.addEventListener("input", schedule);
  form.addEventListener("change", function (event) {
    if (event.target === kChoice) toggleK();
    schedule();
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    update();
  });
  form.dataset.enhanced = "true";
  renumber();
  toggleK();
})();
