#!/usr/bin/env python3
"""An independent haptex device, written from docs/protocol.md alone.

It opens a pseudo-terminal, prints one JSON line with the port the host
opens ({"port": "/dev/pts/N", ...}), and then serves one device on it as
the document says (sections 4 to 7): COBS framing, CRC-32, the sequence
rules and their exceptions, the session, the watchdog, the exoskeleton's
state table and faults, the tactile array's frame grid and, from 1.1, what its pins delivered
(TACTILE_MEASURED, as an ideal pickup reads it). It stops on
SIGTERM, SIGINT or when its standard input closes, and prints one JSON
line of what it saw (watchdog trips, frames, errors).

Only the Python 3 standard library; no haptex code. The behaviour a
firmware engineer would have to guess is marked "doc:" with the section
that settles it.

    docemu.py --kind exo --watchdog-ms 100
    docemu.py --kind tactile --watchdog-ms 60
    docemu.py --kind exo --dof 2          # a CAPS haptex must refuse
"""

import argparse
import json
import os
import select
import signal
import struct
import sys
import time
import tty
import zlib

HEADER = struct.Struct("<BBHIQ")  # type, version, body_len, seq, time_us
MAJOR, MINOR = 1, 1

HELLO, CAPS_EXO, CAPS_TACTILE = 0x01, 0x02, 0x03
STATE, COMMAND, ENABLE = 0x10, 0x11, 0x12
TACTILE_FRAME, TACTILE_STATUS, TACTILE_MEASURED = 0x20, 0x21, 0x22
HEARTBEAT, ERROR = 0x30, 0x3F

E_CRC, E_FRAMING, E_LENGTH, E_UNKNOWN, E_VERSION = 1, 2, 3, 4, 5
E_SEQUENCE, E_WATCHDOG, E_NOT_READY, E_ENABLE_REFUSED, E_RANGE = 6, 7, 8, 9, 10

ST_ENABLED, ST_SATURATED, ST_AT_LIMIT, ST_WATCHDOG = 1, 2, 4, 8
TS_ACTIVE, TS_CLAMPED, TS_WATCHDOG = 1, 2, 4
F_ESTOP = 0x20


def cobs_encode(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block = bytearray()
            continue
        block.append(b)
        if len(block) == 254:
            out.append(255)
            out += block
            block = bytearray()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data):
    out, i = bytearray(), 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            return None
        out += data[i + 1:i + code]
        i += code
        if code < 255 and i < len(data):
            out.append(0)
    return bytes(out)


def seq_after(a, b):
    """doc 4.2: a is later than b when (int32)(a - b) > 0."""
    d = (a - b) & 0xFFFFFFFF
    return d != 0 and d < 0x80000000


def next_seq(s):
    s = (s + 1) & 0xFFFFFFFF
    return s or 1


def put_text(s, n):
    b = s.encode("ascii")[:n]
    return b + b"\0" * (n - len(b))


class Device:
    def __init__(self, args, fd):
        self.a, self.fd = args, fd
        self.t0 = time.monotonic()
        self.kind = args.kind
        self.buf = bytearray()
        self.overflow = False
        # Session (doc 5).
        self.session = False
        self.seq = 0
        self.host_seq = 0
        self.last_host = 0.0
        self.last_sent = 0.0
        self.err_at = {}
        # Exoskeleton (doc 6.3, 6.4).
        self.enabled = False
        self.watchdog_bit = False
        self.condition = F_ESTOP if args.estop else 0
        self.fault = self.condition
        self.torque_cmd = [0, 0, 0]   # µN·m, clamped
        self.saturated = False
        self.ack_seq = self.ack_tag = 0
        self.q = [0.0, -0.79, 1.34]   # rad
        self.qd = [0.0, 0.0, 0.0]
        self.tphys = self.now()
        # Tactile array (doc 6.5).
        self.grid = args.frame_period_us / 1e6
        self.waiting = None           # (a40, a320) for the next boundary
        self.accepted_cell = 0        # grid cell in which it was accepted
        self.playing = None
        # What played since when: (start time, a40, a320, seq, tag), the
        # newest last, for TACTILE_MEASURED (doc 7.9).
        self.played = [(0.0, [0] * 24, [0] * 24, 0, 0)]
        self.host_minor = 0
        self.clamped = False
        self.tac_tripped = False
        # What it saw.
        self.paused_at = -1e9
        self.stats = {"kind": self.kind, "watchdog_trips": 0, "trips_after_own_pause": 0, "frames_in": 0, "accepted": 0,
                      "crc": 0, "framing": 0, "version": 0, "seq_dropped": 0, "seq_lost": 0,
                      "sessions": 0, "errors_sent": {}, "frames_out": 0, "max_host_gap_ms": 0.0, "trip_times": [],
                      "enables": 0, "commands": 0, "tactile_frames": 0}

    def now(self):
        return time.monotonic() - self.t0

    # --- sending -------------------------------------------------------

    def write(self, frame):
        try:
            os.write(self.fd, frame)
            self.stats["frames_out"] += 1
        except BlockingIOError:
            pass  # doc 6.1: a host that does not read loses frames, the device never waits

    def send(self, typ, body, seq=None):
        if seq is None:
            self.seq = next_seq(self.seq)
            seq = self.seq
        raw = HEADER.pack(typ, MAJOR, len(body), seq, int(self.now() * 1e6)) + body
        raw += struct.pack("<I", zlib.crc32(raw) & 0xFFFFFFFF)
        self.write(cobs_encode(raw) + b"\0")
        self.last_sent = self.now()

    def error(self, code, ref_type=0, ref_seq=0, value=0, sessionless=False):
        """doc 7.10: one ERROR per code per 10 ms; doc 4.2: seq 0 outside a session."""
        t = self.now()
        if t - self.err_at.get(code, -1.0) < 0.010:
            return
        self.err_at[code] = t
        name = str(code)
        self.stats["errors_sent"][name] = self.stats["errors_sent"].get(name, 0) + 1
        body = struct.pack("<HBBIi", code, ref_type, 0, ref_seq, value)
        self.send(ERROR, body, seq=0 if sessionless else None)

    def caps(self, nonce):
        a = self.a
        common = struct.pack("<BBBBI24s16sIIII", a.caps_major, MINOR, 1 if self.kind == "exo" else 2, 0, nonce,
                             put_text(a.model, 24), put_text(a.serial, 16), 0x010000,
                             a.period_us, a.watchdog_ms, 0)
        if self.kind == "exo":
            body = common + struct.pack("<B3x3i3i3IIIIII", a.dof, -900000, -1600000, -300000, 900000, 800000, 1900000,
                                        1500000, 1500000, 800000, 5000, 10000, 3125, 1000, 4000)
            self.send(CAPS_EXO, body)
        else:
            # doc 7.3: measures = 1 (from 1.1), in the byte 1.0 reserved
            body = common + struct.pack("<BBBBIIII", 6, 4, 0, 1, 2000, 200000, 30000, a.frame_period_us)
            self.send(CAPS_TACTILE, body)

    def sample(self):
        if self.kind == "exo":
            self.physics()
            status = (ST_ENABLED if self.enabled else 0) | (ST_SATURATED if self.saturated else 0) | \
                     (ST_WATCHDOG if self.watchdog_bit else 0)
            applied = self.torque_cmd if self.enabled else [0, 0, 0]
            body = struct.pack("<3i3i3iHHIII", *[round(x * 1e6) for x in self.q], 0, 0, 0, *applied,
                               status, 0, self.fault, self.ack_seq, self.ack_tag)
            self.send(STATE, body)
        else:
            self.tactile_grid()
            status = (0 if self.tac_tripped else TS_ACTIVE) | (TS_CLAMPED if self.clamped else 0) | \
                     (TS_WATCHDOG if self.tac_tripped else 0)
            self.send(TACTILE_STATUS, struct.pack("<HHIII", status, 0, 0, self.ack_seq, self.ack_tag))

    # --- the physics: one damped joint per axis (J q'' = tau - b q') ----

    def physics(self):
        t = self.now()
        dt, self.tphys = t - self.tphys, t
        lim = [(-0.9, 0.9), (-1.6, 0.8), (-0.3, 1.9)]
        for i in range(3):
            tau = self.torque_cmd[i] * 1e-6 if self.enabled else 0.0
            self.qd[i] += dt * (tau - 0.15 * self.qd[i]) / 2e-3
            self.q[i] = min(max(self.q[i] + dt * self.qd[i], lim[i][0]), lim[i][1])

    def tactile_grid(self):
        """doc 6.5: the waiting frame starts at the next boundary of the array's grid."""
        if self.waiting is not None and int(self.now() / self.grid) > self.accepted_cell:
            self.playing, self.waiting = self.waiting, None
            a40, a320, seq, tag = self.playing
            self.played = self.played[-3:] + [((self.accepted_cell + 1) * self.grid, a40, a320, seq, tag)]

    def measured(self):
        """doc 7.9: each pin's 40 and 320 Hz lines over the frame_period_us
        that ended now. An ideal pin follows its frame's amplitude from the
        boundary the frame started at, so a line over the window is the
        time-weighted mean of the amplitudes that played in it; ack_seq
        names the frame playing at its end."""
        t1 = self.now()
        t0 = t1 - self.grid
        a40, a320 = [0.0] * 24, [0.0] * 24
        for i, (start, f40, f320, _, _) in enumerate(self.played):
            end = self.played[i + 1][0] if i + 1 < len(self.played) else t1
            w = max(0.0, min(end, t1) - max(start, t0)) / self.grid
            for p in range(24):
                a40[p] += w * f40[p]
                a320[p] += w * f320[p]
        _, _, _, seq, tag = self.played[-1]
        body = struct.pack("<24I24III", *[round(x) for x in a40], *[round(x) for x in a320], seq, tag)
        self.send(TACTILE_MEASURED, body)

    # --- receiving -----------------------------------------------------

    def feed(self, data):
        for b in data:
            if b != 0:
                if len(self.buf) > 255:
                    self.overflow = True  # doc 4: a run of more than 255 non-zero bytes is discarded
                else:
                    self.buf.append(b)
                continue
            raw, over = bytes(self.buf), self.overflow
            self.buf, self.overflow = bytearray(), False
            if not raw and not over:
                continue  # a lone 0x00 resynchronises (doc 4)
            self.frame(raw, over)

    def frame(self, enc, over):
        self.stats["frames_in"] += 1
        raw = None if over else cobs_decode(enc)
        if raw is None or len(raw) < 20:
            self.stats["framing"] += 1
            if self.session:
                self.error(E_FRAMING, value=self.stats["framing"])
            return
        if zlib.crc32(raw[:-4]) & 0xFFFFFFFF != struct.unpack("<I", raw[-4:])[0]:
            self.stats["crc"] += 1
            if self.session:
                self.error(E_CRC, value=self.stats["crc"])
            return
        typ, version, body_len, seq, _ = HEADER.unpack(raw[:16])
        if version != MAJOR:
            self.stats["version"] += 1
            return
        if body_len != len(raw) - 20:
            self.stats["framing"] += 1
            if self.session:
                self.error(E_FRAMING, value=self.stats["framing"])
            return
        body = raw[16:-4]
        if typ == HELLO:
            self.hello(seq, body)
            return
        if not self.session:
            self.error(E_NOT_READY, typ, seq, 0, sessionless=True)  # doc 5.5
            return
        if not seq_after(seq, self.host_seq):
            self.stats["seq_dropped"] += 1
            self.error(E_SEQUENCE, typ, seq, self.host_seq)
            return
        self.stats["seq_lost"] += ((seq - self.host_seq) & 0xFFFFFFFF) - 1
        self.host_seq = seq
        self.accept()
        if typ == HEARTBEAT:
            return
        if self.kind == "exo" and typ == COMMAND:
            if len(body) < 16:
                self.error(E_LENGTH, typ, seq, len(body))
                return
            self.command(seq, body)
        elif self.kind == "exo" and typ == ENABLE:
            if len(body) < 4:
                self.error(E_LENGTH, typ, seq, len(body))
                return
            self.enable(seq, body[0])
        elif self.kind == "tactile" and typ == TACTILE_FRAME:
            if len(body) < 196:
                self.error(E_LENGTH, typ, seq, len(body))
                return
            self.tactile_frame(seq, body)
        else:
            self.error(E_UNKNOWN, typ, seq, 0)

    def accept(self):
        """doc 6.2: every accepted host frame resets the watchdog."""
        t = self.now()
        if self.session:
            self.stats["max_host_gap_ms"] = max(self.stats["max_host_gap_ms"], 1e3 * (t - self.last_host))
        self.stats["accepted"] += 1
        self.last_host = t

    def hello(self, seq, body):
        if len(body) < 8:
            return
        major, self.host_minor, _, nonce = struct.unpack("<BBHI", body[:8])
        self.set_enabled(False)      # doc 5.2: output off, whatever it was doing
        self.playing = self.waiting = None
        self.played = [(self.now(), [0] * 24, [0] * 24, 0, 0)]
        if major != MAJOR:
            self.session = False
            self.error(E_VERSION, HELLO, seq, MAJOR, sessionless=True)
            return
        self.session = True
        self.stats["sessions"] += 1
        self.seq = 0
        self.host_seq = seq          # doc 4.2 exception 1
        self.last_host = self.now()
        self.err_at = {}
        self.watchdog_bit = self.tac_tripped = False
        self.fault = self.condition  # doc 6.4: HELLO clears the bits whose condition has gone
        self.ack_seq = self.ack_tag = 0
        self.caps(nonce)

    def set_enabled(self, on):
        if self.kind == "exo":
            self.physics()
        self.enabled = on
        if not on:
            self.torque_cmd = [0, 0, 0]  # doc 6.3: the held command is forgotten

    def command(self, seq, body):
        self.stats["commands"] += 1
        t = list(struct.unpack("<3i", body[:12]))
        tag = struct.unpack("<I", body[12:16])[0]
        self.ack_seq, self.ack_tag = seq, tag
        if self.enabled:
            self.physics()
            maxt = [1500000, 1500000, 800000]
            self.saturated = any(abs(x) > m for x, m in zip(t, maxt))
            self.torque_cmd = [max(-m, min(m, x)) for x, m in zip(t, maxt)]
        self.sample()

    def enable(self, seq, on):
        self.stats["enables"] += 1
        if on not in (0, 1):
            self.error(E_RANGE, ENABLE, seq, on)
            return
        if on == 1:
            if self.fault:
                self.error(E_ENABLE_REFUSED, ENABLE, seq, self.fault)
            else:
                self.set_enabled(True)
                self.watchdog_bit = False
        else:
            self.set_enabled(False)
        self.sample()

    def tactile_frame(self, seq, body):
        self.stats["tactile_frames"] += 1
        a = struct.unpack("<24I24I", body[:192])
        tag = struct.unpack("<I", body[192:196])[0]
        a40 = [min(x, 200000) for x in a[:24]]
        a320 = [min(x, 30000) for x in a[24:]]
        self.clamped = a40 != list(a[:24]) or a320 != list(a[24:])
        self.waiting = (a40, a320, seq, tag)
        self.accepted_cell = int(self.now() / self.grid)
        self.tac_tripped = False     # doc 6.2: the next accepted frame clears the bit and plays
        self.ack_seq, self.ack_tag = seq, tag
        self.sample()
        if self.host_minor >= 1:     # doc 2: 1.1's message goes only to a host of 1.1 or later
            self.measured()

    # --- periodic duties -----------------------------------------------

    def tick(self, late):
        """late: how late this tick runs [s]. When this process itself was
        stopped (the machine paused it), a trip that follows within a
        watchdog period is counted apart: the host was stopped too."""
        if late > 0.010:
            self.paused_at = self.now()
        if not self.session:
            return
        t = self.now()
        silent = t - self.last_host
        if silent > self.a.watchdog_ms / 1e3:
            tripped = False
            if self.kind == "exo" and self.enabled:
                self.set_enabled(False)
                self.watchdog_bit = True
                tripped = True
            elif self.kind == "tactile" and not self.tac_tripped:
                self.playing = self.waiting = None
                self.played = self.played[-3:] + [(t, [0] * 24, [0] * 24, 0, 0)]
                self.tac_tripped = True
                tripped = True
            if tripped:
                self.stats["watchdog_trips"] += 1
                self.stats["trip_times"].append(time.monotonic())
                if t - self.paused_at < self.a.watchdog_ms / 1e3:
                    self.stats["trips_after_own_pause"] += 1
                self.error(E_WATCHDOG, value=int(silent * 1e3))
        if self.kind == "exo" and self.enabled and self.condition:
            self.fault |= self.condition  # doc 6.4: a fault cuts the stage
            self.set_enabled(False)
        if t - self.last_sent >= self.a.period_us / 1e6:
            self.sample()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=["exo", "tactile"], required=True)
    ap.add_argument("--watchdog-ms", type=int, default=100)
    ap.add_argument("--period-us", type=int, default=0, help="default 1000 (exo), 2000 (tactile)")
    ap.add_argument("--frame-period-us", type=int, default=25000)
    ap.add_argument("--dof", type=int, default=3)
    ap.add_argument("--caps-major", type=int, default=MAJOR, help="the major version written in CAPS (not in the header)")
    ap.add_argument("--model", default="docemu")
    ap.add_argument("--serial", default="DOC-0001")
    ap.add_argument("--estop", action="store_true", help="start with the emergency stop pressed")
    ap.add_argument("--realtime", type=int, default=60, help="SCHED_FIFO priority, where permitted (0: normal)")
    args = ap.parse_args()
    if not args.period_us:
        args.period_us = 1000 if args.kind == "exo" else 2000

    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    sched = "normal"
    if args.realtime:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.realtime))
            sched = "SCHED_FIFO %d" % args.realtime
        except (OSError, AttributeError) as e:
            sched = "normal (%s)" % e
    dev = Device(args, master)
    print(json.dumps({"port": os.ttyname(slave), "kind": args.kind, "sched": sched}), flush=True)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    poll = select.poll()
    poll.register(master, select.POLLIN)
    poll.register(sys.stdin.fileno(), select.POLLIN | select.POLLHUP)
    tick = 0.00025
    next_tick = time.monotonic() + tick
    while not stop:
        wait_ms = max(0.0, (next_tick - time.monotonic()) * 1e3)
        for fd, ev in poll.poll(wait_ms):
            if fd == master:
                while True:
                    try:
                        data = os.read(master, 4096)
                    except BlockingIOError:
                        break
                    if not data:
                        break
                    dev.feed(data)
            elif ev & (select.POLLHUP | select.POLLIN):
                if not os.read(sys.stdin.fileno(), 4096):
                    stop.append(1)
                    break
        if time.monotonic() >= next_tick:
            dev.tick(time.monotonic() - next_tick)
            next_tick = max(next_tick + tick, time.monotonic())
    dev.stats["sched"] = sched
    print(json.dumps(dev.stats), flush=True)


if __name__ == "__main__":
    main()
