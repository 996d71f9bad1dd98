"""Coordinate search on grids, for the scripts that fit a few constants (scripts/fidelity_gpu.py,
scripts/fidelity_h100.py): a ternary search along one constant with the others fixed, in turn, until none
moves. It assumes the loss is unimodal along each axis, as the fidelity losses are; it is not a global
optimiser."""


def ternary_min(f, grid):
    """The value of `grid` (sorted) where f is least, for f unimodal along it."""
    lo, hi = 0, len(grid) - 1
    while hi - lo > 2:
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if f(grid[a]) <= f(grid[b]):
            hi = b
        else:
            lo = a
    return min(grid[lo:hi + 1], key=f)


def coordinate_search(loss, grids, start, rounds=6):
    """Minimises loss(values) over the product of `grids` from `start` (a tuple, one value per grid);
    returns (values, loss(values))."""
    x = tuple(start)
    for _ in range(rounds):
        before = x
        for axis, grid in enumerate(grids):
            best = ternary_min(lambda v: loss(x[:axis] + (v,) + x[axis + 1:]), grid)  # noqa: B023
            x = x[:axis] + (best,) + x[axis + 1:]
        if x == before:
            break
    return x, loss(x)
