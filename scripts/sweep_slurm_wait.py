#!/usr/bin/python3
"""sweep_slurm_wait.py DIR ARRAY_ID MERGE_ID CHUNK: waits for a sweep's Slurm job array and its merge job
(scripts/sweep.sh --slurm submits both), and gives up on a task that can never run instead of waiting
forever.

Every SWEEP_SLURM_POLL_S seconds (default 10) it asks Slurm for the state of every array task and of the
merge job (`scontrol -o show job`, and `sacct` for jobs slurmctld has already forgotten):
- running, or pending for a reason that passes (Resources, Priority, Dependency, BeginTime, a limit of
  the account or QOS...): it waits, however long the queue;
- pending for a reason that cannot pass by itself (held by a user or an admin, a launch failure requeued
  as held, a dependency that can never be satisfied, a request the partition can never grant): the task is
  stuck at once; pending because its nodes or partition are down or drained: stuck when that lasts
  SWEEP_SLURM_DOWN_S seconds (default 600), so a reboot is waited out.
When every task has ended or is stuck: stuck tasks and the merge job are cancelled (scancel) and the
results that exist are merged here (merge_sweep.py); otherwise it waits for the merge job. It then prints
one line per task that did not complete (its points and why: state, reason, exit code, and the first line
of a failed point's log) and exits 0 when every task and the merge completed, 1 otherwise.

It is not the submission (sweep.sh writes and submits the scripts).
"""
import json
import os
import re
import subprocess
import sys
import time
import script_args

# Pending reasons that no amount of waiting resolves (Slurm's job_reason names, as scontrol prints them).
NEVER = {
    "JobHeldUser": "held by its user (scontrol hold)",
    "JobHeldAdmin": "held by an administrator",
    "launch_failed_requeued_held": "its launch failed and Slurm requeued it held",
    "DependencyNeverSatisfied": "its dependency can never be satisfied",
    "BadConstraints": "its constraints can never be met",
    "PartitionNodeLimit": "it asks for more nodes than the partition allows",
    "PartitionTimeLimit": "it asks for more time than the partition allows",
    "PartitionConfig": "the partition cannot run it as requested",
    "InvalidAccount": "its account is invalid",
    "InvalidQOS": "its QOS is invalid",
    "AccountNotAllowed": "its account may not use the partition",
    "QOSNotAllowed": "its QOS may not use the partition",
}
# Pending reasons that last as long as nodes or partitions are out of service.
UNAVAILABLE = ("ReqNodeNotAvail", "NodeDown", "PartitionDown", "PartitionInactive", "Nodes_required_for_job_are_DOWN")
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
         "PREEMPTED", "SPECIAL_EXIT"}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


class Job:
    def __init__(self, state="UNKNOWN", reason="", exit_code=""):
        self.state, self.reason, self.exit_code = state, reason.replace(" ", "_"), exit_code

    def ended(self):
        return self.state.split()[0] in ENDED or self.state == "PURGED"


def task_ids(text):
    """ArrayTaskId as scontrol prints it ("3", "0-2", "1,4-5", "0-9%2") -> task indices."""
    ids = []
    for part in text.split("%")[0].split(","):
        if "-" in part:
            a, b = part.split("-")
            ids.extend(range(int(a), int(b) + 1))
        elif part:
            ids.append(int(part))
    return ids


def scontrol_jobs(job_id):
    """Records of `scontrol -o show job JOB_ID` (a pending array range is one record); [] when slurmctld no
    longer knows the job (it forgets a job some time after it ended); None when it could not be asked."""
    code, out = run(["scontrol", "-o", "show", "job", str(job_id)])
    if code != 0:
        return [] if "Invalid job id" in out else None
    records = []
    for line in out.splitlines():
        fields = dict(m.groups() for m in re.finditer(r"(\w+)=(\S*)", line))
        # Reason may hold spaces ("launch failed requeued held"): everything up to the next field.
        m = re.search(r"\bReason=(.*?) \w+=", line)
        if m:
            fields["Reason"] = m.group(1)
        records.append(fields)
    return records


def sacct_jobs(job_id):
    """Job id -> Job for the jobs of JOB_ID that Slurm's accounting knows (none without accounting)."""
    code, out = run(["sacct", "-n", "-P", "-X", "-j", str(job_id), "-o", "JobID,State,ExitCode,Reason"])
    fields = [line.split("|") for line in out.splitlines()] if code == 0 else []
    return {f[0]: Job(f[1], f[3], f[2]) for f in fields if len(f) == 4}


def job_of(record):
    return Job(record.get("JobState", "UNKNOWN"), record.get("Reason", "None"), record.get("ExitCode", ""))


def poll_array(array_id, tasks, states):
    """Updates `states` (task -> Job); False when Slurm could not be asked. A task that neither slurmctld
    nor accounting knows any more has ended (only ended jobs are forgotten)."""
    records = scontrol_jobs(array_id)
    if records is None:
        return False
    seen = set()
    for r in records:
        if r.get("ArrayJobId") == str(array_id) and "ArrayTaskId" in r:
            for t in task_ids(r["ArrayTaskId"]):
                states[t] = job_of(r)
                seen.add(t)
    unseen = [t for t in range(tasks) if t not in seen]
    accounted = sacct_jobs(array_id) if unseen else {}
    for t in unseen:
        known = accounted.get(f"{array_id}_{t}")
        if known:
            states[t] = known
        elif t not in states or not states[t].ended():
            states[t] = Job("PURGED")
    return True


def poll_job(job_id, previous):
    records = scontrol_jobs(job_id)
    if records is None:
        return previous
    for r in records:
        if r.get("JobId") == str(job_id):
            return job_of(r)
    known = sacct_jobs(job_id).get(str(job_id))
    return known or (previous if previous.ended() else Job("PURGED"))


class Stuck:
    """Decides, per job, whether it can still run; `since` remembers when an unavailability began."""

    def __init__(self, down_s):
        self.down_s, self.since = down_s, {}

    def why(self, key, job, now):
        if job.state != "PENDING":
            self.since.pop(key, None)
            return None
        for reason, text in NEVER.items():
            if job.reason.startswith(reason.replace(" ", "_")):
                return f"{text} ({job.reason})"
        if job.reason.startswith(UNAVAILABLE):
            start = self.since.setdefault(key, now)
            if now - start >= self.down_s:
                return f"its nodes or partition have been out of service for {now - start:.0f} s ({job.reason})"
            return None
        self.since.pop(key, None)
        return None


def first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()[:200]
    except OSError:
        return ""


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("dir", help="the sweep's folder")
    ap.add_argument("array_id", help="Slurm job id of the sweep's job array")
    ap.add_argument("merge_id", help="Slurm job id of the merge job")
    ap.add_argument("chunk", type=int, help="points per array task")
    args = ap.parse_args()
    out, array_id, merge_id, chunk = args.dir, args.array_id, args.merge_id, args.chunk
    poll_s = float(os.environ.get("SWEEP_SLURM_POLL_S", "10"))
    with open(os.path.join(out, "todo.txt")) as f:
        todo = f.read().split()
    with open(os.path.join(out, "plan.json")) as f:
        index = {p["key"]: p["point"] for p in json.load(f)["points"]}
    tasks = (len(todo) + chunk - 1) // chunk
    stuck = Stuck(float(os.environ.get("SWEEP_SLURM_DOWN_S", "600")))

    states, merge, merge_why = {}, Job(), None
    while True:
        now = time.monotonic()
        if not poll_array(array_id, tasks, states):
            time.sleep(poll_s)
            continue
        merge = poll_job(merge_id, merge)
        blocked = {t: w for t, w in ((t, stuck.why(t, j, now)) for t, j in states.items()) if w}
        merge_why = stuck.why("merge", merge, now)
        settled = all(states[t].ended() or t in blocked for t in range(tasks))
        if settled and (blocked or merge_why):
            run(["scancel"] + [f"{array_id}_{t}" for t in blocked] + [str(merge_id)])
            subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "merge_sweep.py"), out])
            merge_ok = False
            break
        if settled and merge.ended():
            if merge.state == "PURGED":  # long gone: whether it merged everything, merging again tells
                merge_ok = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(
                    __file__)), "merge_sweep.py"), out]).returncode == 0
            else:
                merge_ok = merge.state == "COMPLETED"
            break
        time.sleep(poll_s)

    problems = 0
    for t in range(tasks):
        keys = todo[t * chunk:(t + 1) * chunk]
        missing = [k for k in keys if not os.path.exists(os.path.join(out, "results", k + ".json"))]
        job = states[t]
        if t in blocked:
            what = f"can never run: {blocked[t]}; cancelled"
        elif job.state != "COMPLETED" or missing:
            what = f"ended {job.state}" + (f" (exit {job.exit_code})" if job.exit_code else "") + \
                   (f", reason {job.reason}" if job.reason not in ("", "None") else "")
        else:
            continue
        problems += 1
        points = ", ".join(str(index[k]) for k in keys)
        print(f"sweep: task {array_id}_{t} (points {points}) {what}; {len(missing)} of them without a result",
              file=sys.stderr)
        for k in missing:
            err = first_line(os.path.join(out, "logs", k + ".err"))
            if err:
                print(f"sweep:   point {index[k]}: {err}", file=sys.stderr)
    if merge_why:
        print(f"sweep: merge job {merge_id} can never run: {merge_why}; merged here instead", file=sys.stderr)
    elif not merge_ok and problems == 0:
        print(f"sweep: merge job {merge_id} ended {merge.state} (exit {merge.exit_code})", file=sys.stderr)
    return 0 if merge_ok and problems == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
