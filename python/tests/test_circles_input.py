"""Circles as people have them: any array of numbers of shape (N, 7)
(float64, integers, lists, slices, Fortran order), NumPy structured arrays,
pandas DataFrames and mappings of columns by name (x, y, r required; z,
red/green/blue or R/G/B optional), each drawing what the float32 array of
the same numbers draws; and the errors for what is not circles."""
import numpy as np
import pytest

import quadrender as qr

try:
    import pandas as pd
except ImportError:
    pd = None

needs_pandas = pytest.mark.skipif(pd is None, reason="pandas is not installed")

CIRCLES = qr.scene("rand10k", seed=7)
NAMES = ("x", "y", "z", "r", "red", "green", "blue")


def draw(circles, **kw):
    return qr.render(circles, 64, 48, mode="exact", device="cpu", **kw)


REF = draw(CIRCLES)


@pytest.mark.parametrize("make", [
    lambda c: c.astype(np.float64),
    lambda c: np.asfortranarray(c),
    lambda c: c.tolist(),
    lambda c: np.hstack([c, c])[:, 7:],  # a view with a row stride of 14 floats
    lambda c: c.astype(">f4"),  # big-endian
    lambda c: np.ascontiguousarray(c[::-1])[::-1],  # a negative stride
], ids=["float64", "fortran", "list", "slice", "big-endian", "reversed"])
def test_array_likes_draw_as_float32(make):
    assert np.array_equal(draw(make(CIRCLES)), REF)


def test_the_caller_array_is_left_as_it_was():
    a = CIRCLES.astype(np.float64)
    before = a.copy()
    draw(a)
    assert a.dtype == np.float64 and np.array_equal(a, before)


def test_integers_are_numbers():
    c = np.array([[8, 8, 0, 4, 1, 0, 0]], np.int64)
    img = qr.render(c, 16, 16, device="cpu")
    assert np.array_equal(img, qr.render(c.astype(np.float32), 16, 16, device="cpu"))


def structured(c, colour=("R", "G", "B")):
    names = ("x", "y", "z", "r") + colour
    return np.rec.fromarrays(list(c.T), names=",".join(names)).view(np.ndarray)


def test_structured_arrays_by_column_name():
    assert np.array_equal(draw(structured(CIRCLES)), REF)
    assert np.array_equal(draw(structured(CIRCLES, ("red", "green", "blue"))), REF)
    # another order, another dtype, an extra column: by name
    c = CIRCLES
    s = np.zeros(len(c), dtype=[("id", "i8"), ("r", "f8"), ("blue", "f4"), ("x", "f8"),
                                ("green", "f2"), ("y", "f8"), ("red", "f4"), ("z", "f4")])
    for k, name in enumerate(NAMES):
        s[name] = c[:, k]
    g = c.copy()
    g[:, 5] = g[:, 5].astype(np.float16)  # what the float16 column holds
    assert np.array_equal(draw(s), draw(g))


def test_optional_columns_take_their_defaults():
    c = CIRCLES
    base = {"x": c[:, 0], "y": c[:, 1], "r": c[:, 3]}
    black = c.copy()
    black[:, 2] = 0
    black[:, 4:] = 0
    assert np.array_equal(draw(base), draw(black))
    colour = c.copy()
    colour[:, 2] = 0
    assert np.array_equal(draw(dict(base, red=c[:, 4], green=c[:, 5], blue=c[:, 6])),
                          draw(colour))


@needs_pandas
def test_dataframes_by_column_name():
    df = pd.DataFrame(CIRCLES, columns=NAMES)
    assert np.array_equal(draw(df), REF)
    # df.to_numpy() of a frame of float64 columns is column-major: taken too
    df64 = df.astype(np.float64)
    assert np.array_equal(draw(df64.to_numpy()), REF)
    # columns in any order, R/G/B spelling, extra columns, a non-default index
    other = df.rename(columns={"red": "R", "green": "G", "blue": "B"})[
        ["B", "r", "G", "x", "R", "z", "y"]].assign(label="a")
    other.index = other.index * 3 + 100
    assert np.array_equal(draw(other), REF)
    assert np.array_equal(qr.leaves(df, 64, 48), qr.leaves(CIRCLES, 64, 48))
    assert qr.stats(df, 64)["circles"] == qr.stats(CIRCLES, 64)["circles"]


@needs_pandas
def test_dataframe_missing_values_are_refused_as_nan():
    df = pd.DataFrame(CIRCLES[:20], columns=NAMES).astype("Float64")
    df.loc[4, "r"] = pd.NA
    with pytest.raises(qr.InvalidArgument, match="row 4: r: nan is not a finite number"):
        draw(df)


def bad(row, column, value):
    c = CIRCLES.copy()
    c[row, column] = value
    return c


@pytest.mark.parametrize("make", [
    lambda c: c,
    lambda c: c.astype(np.float64),
    lambda c: structured(c),
    lambda c: {n: c[:, k] for k, n in enumerate(NAMES)},
], ids=["float32", "float64", "structured", "mapping"])
def test_negative_and_nan_radii_raise_the_librarys_message(make):
    with pytest.raises(qr.InvalidArgument) as e:
        draw(make(bad(9, 3, -0.25)))
    assert str(e.value) == "circles: row 9: negative radius -0.25"
    with pytest.raises(qr.InvalidArgument) as e:
        draw(make(bad(3, 3, np.nan)))
    assert str(e.value) == "circles: row 3: r: nan is not a finite number"
    with pytest.raises(qr.InvalidArgument, match="row 5: x: inf"):
        draw(make(bad(5, 0, np.inf)))


def test_float64_past_float32_is_not_finite():
    c = CIRCLES.astype(np.float64)
    c[2, 1] = 1e300
    with pytest.raises(qr.InvalidArgument, match="row 2: y: inf is not a finite number"):
        draw(c)


def test_missing_and_half_given_columns_raise():
    c = CIRCLES
    with pytest.raises(qr.InvalidArgument) as e:
        draw({"x": c[:, 0], "z": c[:, 2]})
    assert str(e.value).startswith("circles: no column 'y', 'r': columns x, y, r are required")
    with pytest.raises(qr.InvalidArgument, match="without green, blue"):
        draw({"x": c[:, 0], "y": c[:, 1], "r": c[:, 3], "red": c[:, 4]})
    with pytest.raises(qr.InvalidArgument, match="'red' and 'R' are both"):
        draw({"x": c[:, 0], "y": c[:, 1], "r": c[:, 3], "red": c[:, 4], "R": c[:, 4]})
    with pytest.raises(qr.InvalidArgument, match=r"alpha: expected one alpha a circle, shape "
                                                  r"\(10000,\); got \(5,\)"):
        draw({"x": c[:, 0], "y": c[:, 1], "r": c[:, 3], "alpha": c[:5, 4]})
    with pytest.raises(qr.InvalidArgument, match="has 5 rows, column 'x' 10000"):
        draw({"x": c[:, 0], "y": c[:5, 1], "r": c[:, 3]})
    with pytest.raises(qr.InvalidArgument, match="one number a row"):
        draw({"x": c[:, :2], "y": c[:, 1], "r": c[:, 3]})
    with pytest.raises(TypeError, match="column 'r' must be numbers"):
        draw({"x": c[:, 0], "y": c[:, 1], "r": ["a"] * len(c)})


@needs_pandas
def test_dataframe_missing_columns_raise():
    df = pd.DataFrame(CIRCLES, columns=NAMES)
    with pytest.raises(qr.InvalidArgument, match="no column 'r'"):
        draw(df.drop(columns="r"))
    with pytest.raises(qr.InvalidArgument, match="no column 'x', 'y', 'r'"):
        draw(pd.DataFrame(CIRCLES))  # columns 0..6: no names
    words = pd.DataFrame({"x": [0.5], "y": [0.5], "r": pd.array(["big"], dtype="string")})
    with pytest.raises(TypeError, match="column 'r' must be numbers"):
        draw(words)


@pytest.mark.parametrize("shape", [(4, 6), (4, 7, 1), (7,), (), (7, 4)])
def test_wrong_shapes_raise(shape):
    with pytest.raises(qr.InvalidArgument, match=r"shape \(N, 7\)") as e:
        draw(np.zeros(shape, np.float32))
    assert isinstance(e.value, ValueError)


def test_what_is_not_numbers_raises_type_error():
    for thing in (np.zeros((2, 7), bool), np.zeros((2, 7), np.complex128), [["a"] * 7],
                  [[object()] * 7], "rand10k", None):
        with pytest.raises(TypeError):
            draw(thing)
    with pytest.raises(qr.InvalidArgument, match="must be an array of numbers"):
        draw([[0.0] * 7, [0.0] * 6])  # ragged


def test_empty_circles_of_any_kind():
    for empty in (np.zeros((0, 7)), np.zeros((7, 0)).T, {"x": [], "y": [], "r": []}):
        assert np.all(qr.render(empty, 8, 8, device="cpu") == 1.0)
