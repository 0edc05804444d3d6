# One pull of the primary's coordination log (mpt's `coord::pull`): MemPalace's own anti-entropy
# engine, `logsync.sync_with_peer`, with what it cannot fold skipped and counted, never fatal.
# argv: the local logstream, the base of the primary's /sync/* routes; stdin: the token line.
# stdout: one JSON document, the round's stats or {"kind", "error"}.
import json, sys


def out(doc, code):
    sys.stdout.write(json.dumps(doc))
    sys.stdout.flush()
    sys.exit(code)


try:
    from mempalace import logsync
    from mempalace.logstream import Logstream
    from mempalace.logsync import SyncPeerError, sync_with_peer
except MemoryError:
    out({"kind": "memory", "error": "MemoryError while loading MemPalace"}, 4)
except Exception as e:
    out({"kind": "unsupported", "error": "%s: %s" % (type(e).__name__, e)}, 3)
token = sys.stdin.readline().rstrip("\n")

# What the engine cannot fold stalls it for good: an origin_seq that is not a whole number (text,
# which MemPalace stores as a peer sent it) fails `max(after, seq)` and `after < top` every round;
# a field that is not text fails the apply, and the round with it. Such an event is skipped and
# counted, and the rest of the log still comes.
skipped = 0
UNBOUNDED = 2**62
SKIP = "__mpt_unreadable__"
TEXT = ("id", "type", "stream", "room", "from_agent", "created_at", "origin_replica", "hlc")
OPTIONAL = ("topic", "to_agent", "correlation_id", "branch", "base_commit", "status", "body")


def whole(v):
    return type(v) is int and v > 0


def readable(e):
    ids = e.get("artifact_ids") or []
    return (
        all(isinstance(e.get(k), str) and e.get(k) for k in TEXT)
        and all(e.get(k) is None or isinstance(e.get(k), str) for k in OPTIONAL)
        and (e.get("metadata") is None or isinstance(e.get("metadata"), dict))
        and isinstance(ids, list)
        and all(isinstance(a, str) for a in ids)
    )


raw_get = logsync._peer_get


def refused(url, token, path):
    # The primary refused the token (401): its own word for why (a gateway's `{"error": "revoked"}`),
    # asked once more, so mpt says it as it says every refusal, not as Python's text.
    import urllib.error, urllib.request
    why = None
    request = urllib.request.Request(url.rstrip("/") + path)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        urllib.request.urlopen(request, timeout=10).close()
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read().decode("utf-8")).get("error")
        except Exception:
            pass
    except Exception:
        pass
    out({"kind": "refused", "status": 401, "why": why if isinstance(why, str) else None,
         "error": "the primary refused this device's token (401)"}, 2)


def peer_get(url, token, path, params=None):
    global skipped
    try:
        doc = raw_get(url, token, path, params)
    except SyncPeerError as e:
        if "HTTP Error 401" in str(e):
            refused(url, token, path)
        raise
    if not isinstance(doc, dict):
        raise SyncPeerError("%s%s: the reply is not a JSON object" % (url, path))
    if path == "/sync/version_vector":
        vv = doc.get("version_vector")
        vv = vv if isinstance(vv, dict) else {}
        # A top that is no whole number: pull that origin until the primary serves no more.
        doc["version_vector"] = {o: t if whole(t) else UNBOUNDED for o, t in vv.items()}
    elif path == "/sync/ops":
        events = doc.get("events")
        kept = []
        for e in events if isinstance(events, list) else []:
            seq = e.get("origin_seq") if isinstance(e, dict) else None
            if whole(seq) and readable(e):
                kept.append(e)
                continue
            skipped += 1
            # Its place is kept (the origin's cursor moves past it); a text seq sorts after
            # every number on the primary, so nothing readable follows it.
            if whole(seq):
                kept.append({SKIP: True, "origin_seq": seq})
        doc["events"] = kept
    return doc


logsync._peer_get = peer_get


def lenient(apply):
    def fold(item):
        global skipped
        if item.get(SKIP):
            return False
        try:
            return apply(item)
        except ValueError:
            # Malformed in a way only the apply tells (a routing name, a hash that fails).
            skipped += 1
            return False

    return fold


ls = None
try:
    ls = Logstream(sys.argv[1])
    try:
        # A copy of the primary's log: what a power loss takes back, the next pull fetches
        # again (the version vector is read from the log itself). One fsync per event otherwise.
        ls._conn().execute("PRAGMA synchronous=NORMAL")
    except Exception:
        pass
    ls.apply_remote_event = lenient(ls.apply_remote_event)
    ls.apply_remote_artifact = lenient(ls.apply_remote_artifact)
    raw_vector = ls.version_vector

    def vector():
        v = raw_vector()
        if all(whole(t) for t in v.values()):
            return v
        # A row this log holds with a text origin_seq: each origin's top whole number instead.
        rows = ls._conn().execute(
            "SELECT origin_replica, max(origin_seq) FROM events WHERE origin_replica IS NOT NULL"
            " AND typeof(origin_seq) = 'integer' GROUP BY origin_replica"
        )
        return {r[0]: r[1] for r in rows}

    ls.version_vector = vector
    s = sync_with_peer(ls, sys.argv[2], token)
except MemoryError:
    out({"kind": "memory", "error": "MemoryError: a reply of the primary did not fit"}, 4)
except SyncPeerError as e:
    out({"kind": "unreachable", "error": str(e)}, 2)
except Exception as e:
    out({"kind": "failed", "error": "%s: %s" % (type(e).__name__, e)}, 1)
finally:
    if ls is not None:
        ls.close()
out(
    {
        "pulled_events": s.get("pulled_events", 0),
        "pulled_artifacts": s.get("pulled_artifacts", 0),
        "skipped_events": skipped,
        "peer_replica": s.get("peer_replica") if isinstance(s.get("peer_replica"), str) else None,
        "replica": ls.replica_id,
    },
    0,
)
