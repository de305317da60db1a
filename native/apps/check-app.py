#!/usr/bin/env python3
"""check-app.py - a real MPI application with and without monitoring, and an independent count of its calls.

    native/apps/check-app.py --np N [--mpi openmpi|mpich] [--filter REGEX] [--workdir DIR] -- PROGRAM ARGS

Runs PROGRAM three times under mpirun (--mpi mpich: MPICH's mpiexec.hydra) (in --workdir, default a temporary folder):
  1. bare;
  2. under ./eventspace mpirun --json (the interposition library and its agent);
  3. with Open MPI's own PMPI tracer preloaded (libompitrace.so, which prints one stderr line per call of the
     functions it wraps; mpirun --output-filename keeps each rank's lines apart), as an independent count.
Then compares the program's stdout (or --compare-file, a file it writes) of runs 1 and 2 line by line, leaving out
lines that match --filter (timings, dates) or, with --keep, every line that does not match it, and each function libompitrace wraps: its count against mpi.calls of the report.
Exit status 0 if both agree, 1 otherwise. Needs python3, Open MPI (or MPICH, counted with --counter ltrace) and a
built eventspace.
"""
import argparse, collections, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ES = os.path.join(HERE, '..', '..', 'eventspace')
OMPITRACE = '/usr/lib/x86_64-linux-gnu/openmpi/lib/libompitrace.so'
# the C functions libompitrace 4.1 wraps (nm -D), as its lines name them
TRACED = ['MPI_Allgather', 'MPI_Allgatherv', 'MPI_Allreduce', 'MPI_Barrier', 'MPI_Bcast', 'MPI_Finalize', 'MPI_Init',
          'MPI_Isend', 'MPI_Recv', 'MPI_Reduce', 'MPI_Send', 'MPI_Sendrecv']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--np', type=int, required=True)
    ap.add_argument('--filter', default=None, help='leave out output lines that match (timings)')
    ap.add_argument('--keep', default=None, help='compare only output lines that match')
    ap.add_argument('--cut', default=None, help='remove what matches from each line before comparing (a timing at its end)')
    ap.add_argument('--compare-file', default=None, help='compare this file the program writes in its folder, not stdout')
    ap.add_argument('--workdir', default=None)
    ap.add_argument('--timeout', type=int, default=600)
    ap.add_argument('--stdin', default=None, help='a file the program reads on its standard input')
    ap.add_argument('--counter', choices=['ompitrace', 'ltrace'], default='ompitrace',
                    help='the independent count: Open MPI\'s libompitrace (C calls only) or ltrace -c on each rank '
                         '(C and Fortran calls, through the PLT; slow)')
    ap.add_argument('--mpi', choices=['openmpi', 'mpich'], default='openmpi',
                    help='the MPI the program was built against: its launcher runs all three (libompitrace is Open MPI\'s)')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.mpi == 'mpich' and a.counter == 'ompitrace':
        ap.error('--mpi mpich needs --counter ltrace (libompitrace is Open MPI\'s)')
    cmd = a.command[1:] if a.command and a.command[0] == '--' else a.command
    work = a.workdir or tempfile.mkdtemp(prefix='es-app-')
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    mpirun = ['mpirun', '-np', str(a.np), '--oversubscribe'] if a.mpi == 'openmpi' else ['mpiexec.hydra', '-np', str(a.np)]

    def run(argv):
        if a.compare_file and os.path.exists(os.path.join(work, a.compare_file)):
            os.remove(os.path.join(work, a.compare_file))
        stdin = open(a.stdin) if a.stdin else subprocess.DEVNULL
        p = subprocess.run(argv, cwd=work, env=env, stdin=stdin, capture_output=True, text=True, timeout=a.timeout)
        out = p.stdout
        if a.compare_file:
            out = open(os.path.join(work, a.compare_file), errors='replace').read()
        return p.returncode, out, p.stderr

    rc1, out1, _ = run(mpirun + cmd)
    report = os.path.join(work, 'eventspace.json')
    rc2, out2, err2 = run([ES, 'mpirun', '--mpi', a.mpi, '-np', str(a.np), '--json', report, '--trace-dir',
                           os.path.join(work, 'trace'), '--'] + cmd)
    counts = collections.Counter()
    if a.counter == 'ompitrace':
        # each rank's stderr in a file of its own: on one shared stderr the ranks' trace lines interleave mid-line
        traced = os.path.join(work, 'ompitrace')
        rc3, _, _ = run(mpirun + ['--output-filename', traced, '-x', 'LD_PRELOAD=' + OMPITRACE] + cmd)
        for root, _, files in os.walk(traced):
            for f in files:
                if f == 'stderr':
                    for line in open(os.path.join(root, f), errors='replace'):
                        m = re.match(r'(MPI_[A-Z_]+)(\[\d+\])?(?:[:\s]|$)', line)
                        if m:
                            counts[m.group(1)] += 1
        functions = TRACED
    else:
        lt = os.path.join(work, 'ltrace')
        os.makedirs(lt, exist_ok=True)
        # the rank as each launcher tells it: Open MPI's OMPI_COMM_WORLD_RANK, Hydra's PMI_RANK
        shell = 'exec ltrace -c -o ' + lt + '/rank${OMPI_COMM_WORLD_RANK:-$PMI_RANK} -e "mpi_*+MPI_*" "$@"'
        rc3, _, _ = run(mpirun + ['bash', '-c', shell, 'ltrace'] + cmd)
        for f in os.listdir(lt):
            for line in open(os.path.join(lt, f)):
                m = re.match(r'\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\w+)\s*$', line)
                if m:
                    name = m.group(2)
                    if name.startswith('mpi_') and name.endswith('_'):   # gfortran's name of a Fortran call
                        name = 'MPI_' + name[4:-1]
                    counts[name.upper()] += int(m.group(1))
        header = open(os.path.join(HERE, '..', 'es_mpi_layout.h')).read()
        table = {'MPI_' + n for n in re.findall(r'ES_OP\((\w+), \d+\)', header)}
        seen = {f for f in json.load(open(report))['mpi']['calls']} | {'MPI_' + k[4:].capitalize() for k in counts}
        functions = sorted(seen & table)
        print('not MPI calls the library records (ltrace saw them): ' + ', '.join(
            f'{k} {v}' for k, v in sorted(counts.items()) if 'MPI_' + k[4:].capitalize() not in table))
    print(f'exit codes: bare {rc1}, monitored {rc2}, {a.counter} {rc3}')
    def keep(line):
        return (not a.filter or not re.search(a.filter, line)) and (not a.keep or re.search(a.keep, line))
    def cut(line):
        return re.sub(a.cut, '', line) if a.cut else line
    l1 = [cut(l) for l in out1.splitlines() if keep(l)]
    l2 = [cut(l) for l in out2.splitlines() if keep(l)]
    ok = True
    if l1 == l2:
        print(f'{a.compare_file or "stdout"}: identical ({len(l1)} lines compared, {len(out1.splitlines()) - len(l1)} left out by --filter)')
    else:
        ok = False
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(l1, l2)) if x != y][:5]
        print(f'{a.compare_file or "stdout"}: DIFFERENT ({len(l1)} vs {len(l2)} lines); first differences: {diff}')
    calls = json.load(open(report))['mpi']['calls']
    print(f'{"function":<22} {a.counter:>12} {"eventspace":>11}')
    for f in functions:
        theirs = counts.get(f.upper(), 0)
        ours = calls.get(f, 0) + (calls.get('MPI_Init_thread', 0) if f == 'MPI_Init' else 0)
        mark = '' if theirs == ours else '  <- differs'
        if theirs or ours:
            print(f'{f:<22} {theirs:>12} {ours:>11}{mark}')
        ok &= theirs == ours
    print('eventspace also counted: ' + ', '.join(f'{k} {v}' for k, v in sorted(calls.items()) if k not in functions))
    print('summary: ' + ' | '.join(l[len('eventspace: '):] for l in err2.splitlines() if l.startswith('eventspace: ')))
    print(f'work folder: {work}')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
