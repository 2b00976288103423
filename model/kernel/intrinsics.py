"""Machine-level helpers numba does not offer as functions."""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to start loading ``array[index]`` into the cache (``llvm.prefetch``, for
    reading, high locality). The fingerprint table is far larger than the caches, so a probe
    costs a trip to memory; issuing those trips for all of a state's successors before probing
    any of them overlaps them instead of paying them one after another."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        ary = context.make_array(array_type)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


# Rows are whole 64-bit words, and copying, comparing or hashing them word by word is 8 times
# fewer steps than byte by byte. ``row.view(np.uint64)`` would give those words, but numba
# builds and checks a new array for every view (about 25 ns, more than copying the row), and
# the hot loop takes several views per successor; these two read and write a word in place.

def _contiguous_bytes(row) -> None:
    if not isinstance(row, types.Array) or row.ndim != 1 or row.layout != "C" or row.dtype.bitwidth != 8:
        raise TypingError("load_word/store_word take a contiguous one-dimensional array of bytes")


@intrinsic
def load_word(typingctx, row, index):
    """The ``index``-th 64-bit word of the byte row ``row`` (native byte order), as uint64."""
    _contiguous_bytes(row)
    sig = types.uint64(row, index)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        words = builder.bitcast(ary.data, ir.IntType(64).as_pointer())
        return builder.load(builder.gep(words, [args[1]]), align=1)

    return sig, codegen


@intrinsic
def store_word(typingctx, row, index, value):
    """Write ``value`` (a uint64) as the ``index``-th 64-bit word of the byte row ``row``."""
    _contiguous_bytes(row)
    sig = types.void(row, index, types.uint64)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        words = builder.bitcast(ary.data, ir.IntType(64).as_pointer())
        value = context.cast(builder, args[2], signature.args[2], types.uint64)
        builder.store(value, builder.gep(words, [args[1]]), align=1)
        return context.get_dummy_value()

    return sig, codegen
