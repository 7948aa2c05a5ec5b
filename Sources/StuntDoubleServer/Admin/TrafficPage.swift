import Foundation
import StuntDoubleWireMock

/// The page at `/__admin/`: the stubs, the live journal (method, URL, status, the stub that answered,
/// timing), for each unmatched request the near-miss report with what differed, the WebSocket channels with their
/// messages both ways, and the webhooks stubs fired with what became of each. Plain HTML with a
/// little script that asks the admin API for news every second; nothing outside the server is loaded.
enum TrafficPage {
    static func response(token: String?) -> AdminResponse {
        AdminResponse(status: 200, contentType: "text/html; charset=utf-8", body: Data(html.utf8))
    }

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>StuntDouble: traffic</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,">
        <style>
          :root { --fg: #1d2330; --muted: #667085; --line: #e4e7ec; --ok: #067647; --warn: #b54708; --bad: #b42318; }
          body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); margin: 0; }
          header { padding: 14px 24px; border-bottom: 1px solid var(--line); display: flex; gap: 24px; align-items: baseline; }
          header h1 { font-size: 18px; margin: 0; }
          header .stat { color: var(--muted); }
          main { padding: 8px 24px 24px; }
          h2 { font-size: 15px; margin: 20px 0 8px; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
          th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
          td.mono, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 13px; }
          .s2 { color: var(--ok); } .s3 { color: var(--muted); } .s4 { color: var(--warn); } .s5, .err { color: var(--bad); }
          tr.unmatched { background: #fff6ed; cursor: pointer; }
          tr.unmatched:hover { background: #ffead5; }
          tr.violation { background: #fdf0f0; }
          pre.report, pre.events, pre.messages { background: #f8f9fb; border: 1px solid var(--line); padding: 10px 12px; margin: 4px 0 10px;
                       white-space: pre-wrap; font-size: 12.5px; }
          .empty { color: var(--muted); font-style: italic; }
          #status { margin-left: auto; color: var(--muted); font-size: 12px; }
        </style>
        </head>
        <body>
        <header>
          <h1>StuntDouble</h1>
          <span class="stat" id="counts">loading…</span>
          <span id="status"></span>
        </header>
        <main>
          <h2>Requests <span class="stat" style="font-weight:400;color:var(--muted)">newest first; click an unmatched one for what differed</span></h2>
          <table id="requests">
            <thead><tr><th>#</th><th>Time</th><th>Method</th><th>URL</th><th>Status</th><th>Answered by</th><th>Took</th></tr></thead>
            <tbody><tr><td colspan="7" class="empty">No requests yet.</td></tr></tbody>
          </table>
          <h2>WebSocket channels <span class="stat" style="font-weight:400;color:var(--muted)">newest first; each with its messages, oldest first</span></h2>
          <table id="channels">
            <thead><tr><th>Opened by</th><th>State</th><th>Messages</th></tr></thead>
            <tbody><tr><td colspan="3" class="empty">No channels.</td></tr></tbody>
          </table>
          <h2>Webhooks <span class="stat" style="font-weight:400;color:var(--muted)">sent after responses; newest first</span></h2>
          <table id="webhooks">
            <thead><tr><th>After #</th><th>Time</th><th>Method</th><th>URL</th><th>Result</th><th>From</th></tr></thead>
            <tbody><tr><td colspan="6" class="empty">No webhooks.</td></tr></tbody>
          </table>
          <h2>Stubs</h2>
          <table id="stubs">
            <thead><tr><th>Name</th><th>Method</th><th>Matches</th><th>Answers</th><th>Priority</th></tr></thead>
            <tbody><tr><td colspan="5" class="empty">No stubs.</td></tr></tbody>
          </table>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token");
        const headers = token ? { "Authorization": "Bearer " + token } : {};
        const base = location.pathname.replace(/\/+$/, "");
        const open = new Set();

        function cell(row, text, className) {
          const td = document.createElement("td");
          td.textContent = text === undefined || text === null ? "" : String(text);
          if (className) td.className = className;
          row.appendChild(td);
          return td;
        }

        function urlOf(request) {
          return request.url || request.urlPath || request.urlPattern || request.urlPathPattern || request.urlPathTemplate || "(any URL)";
        }

        async function api(path) {
          const response = await fetch(base + path, { headers });
          if (!response.ok) throw new Error(path + ": " + response.status);
          return response.json();
        }

        function renderRequests(events) {
          const body = document.querySelector("#requests tbody");
          body.replaceChildren();
          if (events.length === 0) {
            const row = body.insertRow();
            cell(row, "No requests yet.", "empty").colSpan = 7;
            return;
          }
          for (const event of events) {
            const request = event.request;
            const row = body.insertRow();
            const status = event.response.status || (event.response.fault ? "—" : "…");
            cell(row, event.number, "mono");
            cell(row, new Date(request.loggedDate).toLocaleTimeString(), "mono");
            cell(row, request.method, "mono");
            cell(row, request.url, "mono");
            cell(row, status, "mono s" + String(status).charAt(0));
            const answered = event.wasMatched ? (event.stubMapping && event.stubMapping.name) || "stub " + (event.stubMapping ? event.stubMapping.id : "")
                                              : (event.responseDefinition.status === 502 ? "not stubbed (no upstream)" : "unmatched");
            cell(row, answered, event.wasMatched ? "" : "err");
            cell(row, event.timing.totalTime + " ms", "mono");
            if (event.response.fault) row.cells[5].textContent += " — " + event.response.fault;
            if (event.contractViolations || event.requestViolations) {
              // The stub's response (or, behind a validating proxy, the request or the upstream's answer) breaks
              // a loaded OpenAPI document: what, under the row.
              const broken = (event.requestViolations || []).map(line => "request: " + line)
                .concat((event.contractViolations || []).map(line => (event.requestViolations ? "answer: " : "") + line));
              row.className = "violation";
              row.cells[5].textContent += " — breaks the OpenAPI document";
              const detail = body.insertRow();
              detail.className = "violation";
              const td = cell(detail, "");
              td.colSpan = 7;
              const pre = document.createElement("pre");
              pre.className = "report violations";
              pre.textContent = broken.join("\n");
              td.appendChild(pre);
            }
            if (event.serverSentEvents) {
              // An event stream: its events, each at the time after the request it was due.
              const stream = event.serverSentEvents;
              const detail = body.insertRow();
              const td = cell(detail, "");
              td.colSpan = 7;
              const pre = document.createElement("pre");
              pre.className = "events";
              const lines = stream.events.map(e => ("+" + e.dueMilliseconds + " ms").padStart(11) + "  "
                + (e.event || "message") + (e.id ? " #" + e.id : "") + "  " + (e.data !== undefined ? e.data : ": " + (e.comment || "")));
              if (stream.eventCount > stream.events.length) lines.push("… " + (stream.eventCount - stream.events.length) + " more");
              const plays = stream.plays === "forever" ? "repeated until the client leaves" : stream.plays > 1 ? "played " + stream.plays + " times" : "";
              const ending = stream.end === "open" ? "left open" : "";
              const about = [plays, ending].filter(Boolean).join(", ");
              pre.textContent = "event stream" + (about ? " (" + about + ")" : "") + "\n" + lines.join("\n");
              td.appendChild(pre);
            }
            if (!event.wasMatched && event.nearMissReport) {
              row.className = "unmatched";
              row.dataset.id = event.id;
              row.addEventListener("click", () => { open.has(event.id) ? open.delete(event.id) : open.add(event.id); refresh(); });
              if (open.has(event.id)) {
                const detail = body.insertRow();
                const td = cell(detail, "");
                td.colSpan = 7;
                const pre = document.createElement("pre");
                pre.className = "report";
                pre.textContent = event.nearMissReport;
                td.appendChild(pre);
              }
            }
          }
        }

        function renderWebhooks(webhooks) {
          const body = document.querySelector("#webhooks tbody");
          body.replaceChildren();
          if (webhooks.length === 0) {
            const row = body.insertRow();
            cell(row, "No webhooks.", "empty").colSpan = 6;
            return;
          }
          for (const webhook of webhooks) {
            const row = body.insertRow();
            cell(row, webhook.requestNumber === undefined ? "admin" : webhook.requestNumber, "mono");
            cell(row, new Date(webhook.scheduledDate).toLocaleTimeString(), "mono");
            cell(row, webhook.method, "mono");
            cell(row, webhook.url, "mono");
            if (webhook.state === "answered") {
              cell(row, webhook.status + " in " + webhook.took + " ms", "mono s" + String(webhook.status).charAt(0));
            } else if (webhook.state === "failed") {
              cell(row, webhook.error, "err");
            } else {
              cell(row, webhook.delayMilliseconds > 0 ? "waiting (" + webhook.delayMilliseconds + " ms delay)" : "sending…", "mono s3");
            }
            const source = cell(row, webhook.source, "mono");
            for (const violation of webhook.violations || []) {
              const note = document.createElement("div");
              note.className = "err";
              note.textContent = violation;
              source.appendChild(note);
            }
          }
        }

        // Channels: the open ones and those the message journal names, each with its messages (⇠ from the client,
        // ⇢ to it) and the stub that answered.
        function renderChannels(open, events) {
          const channels = new Map();
          for (const channel of open) channels.set(channel.id, { channel, messages: [] });
          for (const event of [...events].reverse()) {
            const entry = channels.get(event.channel.id) || { channel: event.channel, messages: [] };
            entry.messages.push(event);
            channels.set(event.channel.id, entry);
          }
          const body = document.querySelector("#channels tbody");
          body.replaceChildren();
          if (channels.size === 0) {
            const row = body.insertRow();
            cell(row, "No channels.", "empty").colSpan = 3;
            return;
          }
          for (const { channel, messages } of [...channels.values()].reverse()) {
            const row = body.insertRow();
            const request = channel.initiatingRequest || {};
            cell(row, (request.absoluteUrl || request.url || "").replace(/^http/, "ws"), "mono");
            const stillOpen = open.some(c => c.id === channel.id);
            cell(row, stillOpen ? "open" : "closed", stillOpen ? "mono s2" : "mono s3");
            const list = cell(row, "");
            if (messages.length === 0) {
              list.textContent = "none yet";
              list.className = "empty";
              continue;
            }
            const pre = document.createElement("pre");
            pre.className = "messages";
            pre.textContent = messages.map(m => new Date(m.timestamp).toLocaleTimeString() + "  "
              + (m.eventType === "received" ? "⇠ client " : "⇢ client ") + " " + (m.message ?? "")
              + (m.eventType === "received" && !m.wasMatched ? "   (no stub matched)" : "")
              + (m.stubMapping && m.stubMapping.name ? "   (" + m.stubMapping.name + ")" : "")).join("\n");
            list.appendChild(pre);
          }
        }

        function renderStubs(mappings, swiftStubs) {
          const body = document.querySelector("#stubs tbody");
          body.replaceChildren();
          if (mappings.length === 0 && swiftStubs.length === 0) {
            const row = body.insertRow();
            cell(row, "No stubs.", "empty").colSpan = 5;
            return;
          }
          for (const mapping of mappings) {
            const row = body.insertRow();
            const request = mapping.request || {};
            const response = mapping.response || {};
            cell(row, mapping.name || mapping.id);
            cell(row, request.method || "ANY", "mono");
            cell(row, urlOf(request), "mono");
            cell(row, response.fault || response.status || 200, "mono");
            cell(row, mapping.priority || 5, "mono");
          }
          for (const stub of swiftStubs) {
            const row = body.insertRow();
            cell(row, stub.description);
            cell(row, stub.methods.join(", ") || "none", "mono");
            cell(row, stub.matchers.join("; ") || "(any request)", "mono");
            cell(row, "from Swift");
            cell(row, stub.priority, "mono");
          }
        }

        async function refresh() {
          try {
            const [journal, mappings, swift, webhooks, channels, messages] = await Promise.all(
              [api("/requests?limit=200"), api("/mappings"), api("/stuntdouble/stubs"), api("/stuntdouble/webhooks"),
               api("/channels"), api("/messages")]);
            renderRequests(journal.requests);
            renderChannels(channels.channels, messages.messageServeEvents.slice(0, 500));
            renderWebhooks(webhooks.webhooks);
            renderStubs(mappings.mappings, swift.stubs);
            const unmatched = journal.requests.filter(event => !event.wasMatched).length;
            document.getElementById("counts").textContent =
              (mappings.meta.total + swift.stubs.length) + " stubs · " + journal.meta.total + " requests · " + unmatched + " unmatched";
            document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
          } catch (error) {
            document.getElementById("status").textContent = "cannot reach the admin API (" + error.message + ")";
          }
        }

        refresh();
        setInterval(refresh, 1000);
        </script>
        </body>
        </html>
        """#
}
