#!/usr/bin/env python3
"""Feed the hostile input files to the haptex binary and measure each refusal.

    go build -o /tmp/haptex ./cmd/haptex && scripts/hostile-files.py /tmp/haptex

Every class of hostile file (the classes of internal/safefile/safefiletest)
goes to every command that reads that kind of file: fabric check, devices
check (as the devices file and as the kinematics file it names),
experiment check, and run -user / -tactile-cal for the JSON calibrations.
For each run it prints the wall time, the CPU time (user and system: what
the refusal cost, whatever else the machine runs), the peak resident memory
(from /usr/bin/time: the whole process, Go runtime and binary included) and the
error line, and flags any run that was accepted, took 1 s or more, used
100 MB or more, printed more than one line, or hung (killed after 10 s).
"""

import os
import subprocess
import sys
import tempfile


# Each class is built when it is written, so that the bodies are not in
# this process's memory when it forks the commands (a child's peak RSS
# counts the pages it shares with its parent before exec).
TOML = {
    "nested-inline-tables": lambda: "x = " + "{a=" * 20000 + "1" + "}" * 20000 + "\n",
    "nested-arrays": lambda: "x = " + "[" * 20000 + "1" + "]" * 20000 + "\n",
    "dotted-key": lambda: "a." * 50000 + "a = 1\n",
    "dotted-table-header": lambda: "[" + "a." * 50000 + "a]\nb = 1\n",
    "long-key": lambda: "k" * (1 << 20) + " = 1\n",
    "many-tables": lambda: "".join("[unknown%d]\n" % i for i in range(200000)),
    "many-keys": lambda: "".join("k%d = 1\n" % i for i in range(200000)),
    "many-inline-tables": lambda: "x = [" + "{}," * 500000 + "]\n",
    "many-values": lambda: "x = [" + "1," * 1000000 + "]\n",
    "oversized": lambda: "# " + "x" * (8 << 20) + "\n",
}

JSON = {
    "nested-arrays": lambda: "[" * 20000 + "1" + "]" * 20000,
    "nested-objects": lambda: '{"a":' * 20000 + "1" + "}" * 20000,
    "long-key": lambda: '{"' + "k" * (512 << 10) + '":1}',
    "many-keys": lambda: "{" + '"k":1,' * 100000 + '"k":1}',
    "many-values": lambda: "[" + "1," * 400000 + "1]",
    "oversized": lambda: '{"a":"' + "x" * (8 << 20) + '"}',
}


def special(dir):
    fifo = os.path.join(dir, "fifo")
    os.mkfifo(fifo)
    folder = os.path.join(dir, "folder")
    os.mkdir(folder)
    return {"devzero": "/dev/zero", "fifo": fifo, "folder": folder}


def run(argv, tmp):
    """Runs argv under /usr/bin/time and timeout(1), small processes: a
    child forked from this one would count this process's pages in its
    peak RSS. timeout kills a command that hangs after 10 s."""
    report = os.path.join(tmp, "time.out")
    p = subprocess.run(["/usr/bin/time", "-o", report, "-f", "%e %M %U %S", "timeout", "-s", "KILL", "10"] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, rss, cpu = 0.0, 0.0, 0.0
    with open(report) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].replace(".", "").isdigit():
                wall, rss, cpu = float(parts[0]), int(parts[1]) / 1024, float(parts[2]) + float(parts[3])
    hung = p.returncode in (124, 137, -9)
    return p.returncode, wall, cpu, rss, p.stderr.decode(errors="replace").strip(), hung


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if not os.path.exists("/usr/bin/time"):
        sys.exit("needs /usr/bin/time (Debian: apt-get install time)")
    haptex = os.path.abspath(sys.argv[1])
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        files = {}
        for kind, classes in (("toml", TOML), ("json", JSON)):
            for name, body in classes.items():
                files[kind, name] = os.path.join(tmp, name + "." + kind)
                with open(files[kind, name], "w") as f:
                    f.write(body())
        for name, path in special(tmp).items():
            files["toml", name] = files["json", name] = path

        def devices_file(kin):
            p = os.path.join(tmp, "devices-kin.toml")
            with open(p, "w") as f:
                f.write('[thumb.exoskeleton]\nkind = "serial"\nport = "/dev/ttyACM0"\nkinematics = "%s"\n' % kin)
            return p

        commands = [
            ("toml", "fabric check", lambda f: ["fabric", "check", f]),
            ("toml", "devices check", lambda f: ["devices", "check", f]),
            ("toml", "devices check (kinematics)", lambda f: ["devices", "check", devices_file(f)]),
            ("toml", "experiment check", lambda f: ["experiment", "check", f]),
            ("json", "run -user", lambda f: ["run", "-lockstep", "-duration", "0.1s", "-out", "", "-user", f]),
            ("json", "run -tactile-cal", lambda f: ["run", "-lockstep", "-duration", "0.1s", "-out", "", "-tactile-cal", f]),
        ]
        print("%-28s %-22s %7s %6s %7s  %s" % ("command", "file", "wall s", "CPU s", "RSS MB", "error"))
        worst_wall = worst_cpu = worst_rss = 0.0
        runs = 0
        for kind, label, argv in commands:
            for (k, name), path in sorted(files.items()):
                if k != kind:
                    continue
                rc, wall, cpu, rss, err, hung = run([haptex] + argv(path), tmp)
                worst_wall, worst_cpu, worst_rss = max(worst_wall, wall), max(worst_cpu, cpu), max(worst_rss, rss)
                runs += 1
                lines = err.splitlines() or [""]
                bad = hung or rc == 0 or wall >= 1 or rss >= 100 or len(lines) > 1
                failed += bad
                what = "hung, killed" if hung else lines[0].replace(tmp, "$TMP")[:160]
                if len(lines) > 1:
                    what += " (and %d more lines)" % (len(lines) - 1)
                print("%-28s %-22s %7.2f %6.2f %7.1f  %s%s" % (label, name, wall, cpu, rss, "FAIL " if bad else "", what))
        print("worst: %.2f s wall, %.2f s CPU, %.1f MB; %d of %d failed" % (worst_wall, worst_cpu, worst_rss, failed, runs))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
