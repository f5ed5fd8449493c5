// Makes the inbox installable and opens its shell offline. Network first, so a new relay's inbox
// (or a rolled-back one, after `409 reload`) is what loads; the API and the socket are never cached.
const CACHE = "loopback-shell-v1";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(event.request, copy));
        }
        return response;
      })
      .catch(() => caches.match(event.request).then((hit) => hit ?? Response.error())),
  );
});

// --- Web Push: the relay's notice of an ask that needs the person (the contract's `PushNotice`) ---

const KIND = { question: "Question", review: "Review", briefing: "Briefing", approval: "Approval" };
// The contract revision this worker speaks: the inbox's REVISION, written in when the web inbox is
// built (web.vite.config.ts). Approvals exist from 4 on, and a relay hides them from a request that
// names no revision.
const REVISION = "__LOOPBACK_REVISION__";

self.addEventListener("push", (event) => {
  let notice = null;
  try {
    notice = event.data?.json() ?? null;
  } catch {
    // Not a notice of ours: the browser still expects a notification for every push.
  }
  event.waitUntil(notice?.askId ? showNotice(notice) : self.registration.showNotification("Loopback", { body: "Something needs you in Loopback." }));
});

/** The buttons a notice gets where the platform shows them: a two-option question's choices, a review's Approve, an approval's Allow and Deny. */
function actionsOf(notice) {
  if (notice.kind === "approval") return [{ action: "allow", title: "Allow" }, { action: "deny", title: "Deny" }];
  if (notice.kind === "question" && notice.options?.length === 2) return notice.options.map((label, i) => ({ action: `choice:${i}`, title: label }));
  if (notice.kind === "review") return [{ action: "approve", title: "Approve" }];
  return [];
}

function showNotice(notice) {
  const what = notice.reason === "answered" ? `${KIND[notice.kind] ?? "Ask"}: the agent answered` : (KIND[notice.kind] ?? "Ask");
  return self.registration.showNotification(notice.project ? `${what} · ${notice.project}` : what, {
    body: notice.title,
    // One notification per ask: a newer notice about it replaces the older.
    tag: notice.askId,
    renotify: true,
    icon: "./icon/192.png",
    data: notice,
    actions: actionsOf(notice),
  });
}

function replyOf(notice, action) {
  const choice = /^choice:([01])$/.exec(action ?? "");
  if (choice && notice.kind === "question" && notice.options?.length === 2) return { outcome: "answered", selected: [notice.options[Number(choice[1])]] };
  if (action === "approve" && notice.kind === "review") return { outcome: "approved" };
  if (action === "allow" && notice.kind === "approval") return { outcome: "allowed" };
  if (action === "deny" && notice.kind === "approval") return { outcome: "denied" };
  return null;
}

self.addEventListener("notificationclick", (event) => {
  const notice = event.notification.data;
  event.notification.close();
  if (!notice?.askId) return;
  const reply = replyOf(notice, event.action);
  event.waitUntil(reply ? sendReply(notice, reply) : openAsk(notice.askId));
});

/** The ask in an open inbox window, or in a new one. */
async function openAsk(askId) {
  const url = new URL(`./#/ask/${encodeURIComponent(askId)}`, self.registration.scope).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((w) => w.url.startsWith(self.registration.scope));
  if (open) {
    await open.navigate(url).catch(() => {});
    return open.focus();
  }
  return self.clients.openWindow(url);
}

/**
 * Sends the action's reply without opening the page, with the person's token that the inbox keeps
 * for this worker in IndexedDB. What the relay refuses is said in a notification that opens the ask.
 */
async function sendReply(notice, reply) {
  let why;
  try {
    const token = await storedToken();
    if (!token) throw new Error("sign in to the inbox on this device first.");
    const response = await fetch(new URL(`../api/v1/asks/${encodeURIComponent(notice.askId)}/reply`, self.registration.scope), {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json", "Loopback-Revision": REVISION },
      body: JSON.stringify(reply),
      credentials: "omit",
    });
    if (response.ok) return;
    why = (await response.json().catch(() => null))?.message ?? `the relay answered ${response.status}.`;
  } catch (e) {
    why = e instanceof Error ? e.message : String(e);
  }
  await self.registration.showNotification(`Not sent · ${notice.project ?? KIND[notice.kind] ?? "Loopback"}`, {
    body: `${notice.title}: ${why}`,
    tag: notice.askId,
    icon: "./icon/192.png",
    // No actions: a click opens the ask, to answer it there.
    data: notice,
  });
}

// Must match web/worker-token.ts, which writes it.
function storedToken() {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("loopback", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("session");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const read = open.result.transaction("session").objectStore("session").get("token");
      read.onsuccess = () => resolve(read.result ?? null);
      read.onerror = () => reject(read.error);
    };
  });
}
