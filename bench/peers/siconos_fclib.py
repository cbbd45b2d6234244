#!/usr/bin/env python3
"""Solve FCLib local problems with Siconos's solvers: the other side of `subsim solve`.

subsim exports its recorded problems as FCLib files (`subsim export-fclib P.h5 DIR --local`);
this script reads each file's W, q and mu with h5py, hands them to Siconos numerics (Debian's
python3-siconos) and reports, per solver, the iterations, the time and the error of Siconos's
answer under subsim's judge: FCLib's normalised natural-map error
||r - P_K(r - u~)|| / max(||q||, ||r||, ||u||), u = W r + q, u~ = u + [mu ||u_T||, 0, 0], the
same formula as subsim's metrics (src/subsim/metrics/step_metrics.cpp).  So the figures of both
engines stand side by side on identical problems.

Not part of the build or the tests: it needs python3-siconos, python3-h5py and python3-scipy
(apt-get install python3-siconos python3-h5py python3-scipy), which subsim does not depend on.

    /usr/bin/python3 bench/peers/siconos_fclib.py DIR/*.hdf5 [--tolerance 1e-8] [--iterations N]
        [--time-limit S] [--solvers nsgs,nsn-ac,admm,prox] [--format markdown|csv]
"""
import argparse
import math
import sys
import time

import h5py
import numpy as np
import scipy.sparse as sp

try:
    import siconos.numerics as sn
except ImportError:
    sys.exit("siconos_fclib.py: python3-siconos is not installed (apt-get install python3-siconos)")

SOLVERS = {
    "nsgs": "SICONOS_FRICTION_3D_NSGS",
    "nsn-ac": "SICONOS_FRICTION_3D_NSN_AC",
    "admm": "SICONOS_FRICTION_3D_ADMM",
    "prox": "SICONOS_FRICTION_3D_PROX",
    "fpp": "SICONOS_FRICTION_3D_FPP",
}


def read_matrix(group):
    m, n, nz = int(group["m"][0]), int(group["n"][0]), int(group["nz"][0])
    p, i, x = group["p"][:], group["i"][:], group["x"][:]
    if nz == -1:
        return sp.csc_matrix((x[: p[-1]], i[: p[-1]], p), shape=(m, n))
    if nz == -2:
        return sp.csr_matrix((x[: p[-1]], i[: p[-1]], p), shape=(m, n)).tocsc()
    return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsc()  # CSparse: i rows


def read_local(path):
    with h5py.File(path, "r") as f:
        if "fclib_local" not in f:  # noqa: SIM108
            raise SystemExit(f"siconos_fclib.py: '{path}' holds no /fclib_local problem")
        g = f["fclib_local"]
        W, q, mu = read_matrix(g["W"]), g["vectors"]["q"][:], g["vectors"]["mu"][:]
        if "V" in g:
            # Equality rows (V^T r + R l + s = 0, R SPD) eliminated exactly, since Siconos's
            # FrictionContactProblem has none: l = -R^-1 (V^T r + s).
            V, R, s = read_matrix(g["V"]).toarray(), read_matrix(g["R"]).toarray(), g["vectors"]["s"][:]
            W = sp.csc_matrix(W.toarray() - V @ np.linalg.solve(R, V.T))
            q = q - V @ np.linalg.solve(R, s)
        return W, q, mu


def project_cone(r, mu):
    n, t = r[0], r[1:]
    nt = np.linalg.norm(t)
    if mu * nt <= -n:
        return np.zeros(3)
    if nt <= mu * n:
        return r
    a = (mu * nt + n) / (mu * mu + 1.0)
    return np.concatenate(([a], mu * a * t / nt))


def natural_map_error(W, q, mu, r):
    u = W @ r + q
    num = 0.0
    for c in range(len(mu)):
        rc, uc = r[3 * c : 3 * c + 3], u[3 * c : 3 * c + 3]
        ut = uc + np.array([mu[c] * math.hypot(uc[1], uc[2]), 0.0, 0.0])
        num += float(np.sum((rc - project_cone(rc - ut, mu[c])) ** 2))
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(num) / scale if num > 0 else 0.0


def solve(W, q, mu, solver, tolerance, iterations, time_limit):
    """The least iteration cap at which Siconos's solver meets `tolerance` under subsim's judge,
    by doubling (Siconos stops on its own error, which is normalised otherwise)."""
    nc = len(mu)
    problem = sn.FrictionContactProblem(3, nc, W.toarray(), q, mu)
    cap, best = 1, None
    while True:
        options = sn.SolverOptions(getattr(sn, SOLVERS[solver]))
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = cap
        options.dparam[sn.SICONOS_DPARAM_TOL] = tolerance * 1e-3
        r, u = np.zeros(3 * nc), np.zeros(3 * nc)
        t0 = time.perf_counter()
        sn.fc3d_driver(problem, r, u, options)
        ms = (time.perf_counter() - t0) * 1e3
        err = natural_map_error(W, q, mu, r)
        best = (options.iparam[sn.SICONOS_IPARAM_ITER_DONE], ms, err)
        if err <= tolerance:
            return ("converged",) + best
        if cap >= iterations or ms >= time_limit * 1e3:
            return ("iteration-cap" if cap >= iterations else "time-limit",) + best
        cap = min(2 * cap, iterations)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tolerance", type=float, default=1e-8)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--solvers", default="nsgs,nsn-ac,admm,prox")
    ap.add_argument("--format", choices=["markdown", "csv"], default="markdown")
    a = ap.parse_args()
    solvers = a.solvers.split(",")
    for s in solvers:
        if s not in SOLVERS:
            ap.error(f"unknown solver '{s}' (known: {', '.join(SOLVERS)})")
    if a.format == "csv":
        print("file,contacts,solver,status,iterations,solve_ms,natural_map_error")
    else:
        print("| file | contacts | Siconos solver | status | iterations | ms | natural-map error |")
        print("|---|---:|---|---|---:|---:|---:|")
    for path in a.files:
        W, q, mu = read_local(path)
        for s in solvers:
            status, it, ms, err = solve(W, q, mu, s, a.tolerance, a.iterations, a.time_limit)
            if a.format == "csv":
                print(f"{path},{len(mu)},{s},{status},{it},{ms:.6g},{err:.6g}")
            else:
                print(f"| {path} | {len(mu)} | {s} | {status} | {it} | {ms:.2f} | {err:.3g} |")


if __name__ == "__main__":
    main()
