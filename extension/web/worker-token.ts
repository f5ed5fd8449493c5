// The person's token, kept for the service worker, which cannot read localStorage: it sends the reply
// of a notification's action without opening the page. Read by `storedToken()` in public/sw.js.
const DB = "loopback";
const STORE = "session";
const KEY = "token";

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => resolve(request.result);
  });
}

async function write(change: (store: IDBObjectStore) => void): Promise<void> {
  if (typeof indexedDB === "undefined") return;
  const db = await open();
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction(STORE, "readwrite");
    change(tx.objectStore(STORE));
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

export const keepTokenForWorker = (token: string) => write((store) => store.put(token, KEY));
export const forgetTokenForWorker = () => write((store) => store.delete(KEY));
