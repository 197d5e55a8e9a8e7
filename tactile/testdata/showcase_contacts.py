#!/usr/bin/python3
"""Extracts the contacts of a recorded session for the tactile package's
tests: every tactile frame in which a finger touched the cloth, with what
the rig gave the renderer (tactile.Contact). The committed
showcase_contacts.csv is the showcase handling script on the default
fabric, in virtual time:

    go run ./cmd/haptex run -lockstep -duration 10s -out /tmp/showcase
    /usr/bin/python3 tactile/testdata/showcase_contacts.py \
        /tmp/showcase/session-*/tactile.csv > tactile/testdata/showcase_contacts.csv
"""
import csv
import sys

FIELDS = ["u_m", "v_m", "orientation_rad", "slip_u_mps", "slip_v_mps",
          "normal_force_n", "curvature_1pm", "pad_d_m", "pad_l_m"]


def main(path):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["t_s", "finger"] + FIELDS)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for finger, name in enumerate(("thumb", "index")):
                if row[name + "_contact"] == "1":
                    out.writerow([row["t_s"], finger] + [row[name + "_" + k] for k in FIELDS])


if __name__ == "__main__":
    main(sys.argv[1])
