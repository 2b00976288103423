"""Protocol variants, one module each, registered by name."""

from model.errors import ConfigError
from model.protocols import VARIANTS, get_variant, register_variant
from model.rules import ISR_EXPANSION_AS_OWN_STEP, PRESETS, RESET_FOLLOWERS_ON_EPOCH
from model.variants.base import ReplicationModel, action
from model.variants import hw_truncation, kip101, kip279, kip320  # noqa: F401  (registers them)

__all__ = ["VARIANTS", "ReplicationModel", "action", "get_variant", "register_variant",
           "make_reference_model", "reference_supports"]


def reference_supports(config) -> bool:
    """Whether the reference model has ``config``'s rules: a named protocol's preset, with or
    without either of kmc 0.1's rules (``isr-expansion-as-own-step``,
    ``reset-followers-on-epoch``) (or a plugin protocol, which brings its own model), and
    none of the later environment features (fault bounds, the lagging HW checkpoint, fetches
    from followers), which exist only in the kernel."""
    if (config.bounds.faults() or config.hw_checkpoint != "immediate" or config.fetch_from_followers
            or config.track_reads):
        return False
    preset = PRESETS.get(config.protocol)
    if preset is None:
        return True
    return set(config.rules) - {RESET_FOLLOWERS_ON_EPOCH.name, ISR_EXPANSION_AS_OWN_STEP.name} == set(preset)


def make_reference_model(config):
    """The reference engine's model of ``config``: the pure-Python definition of the 2018-era
    protocols, kept as the cross-check of the compiled kernel.

    It has the four protocols' rule sets, and two switches: whether a leader adds a caught-up
    follower to the ISR inside its fetch (Kafka's rule) or in a step of its own
    (``isr-expansion-as-own-step``, kmc 0.1's), and whether a leader forgets its followers' LEOs
    only when newly leader (Kafka's) or on every new epoch (``reset-followers-on-epoch``, kmc
    0.1's). Any other rule set exists only in the kernel: the engines built on this model
    (reference, bmc, k-induction) refuse it with a ``ConfigError`` rather than check a different model."""
    cls = get_variant(config.protocol)
    if (config.bounds.faults() or config.hw_checkpoint != "immediate" or config.fetch_from_followers
            or config.track_reads):
        raise ConfigError(
            "this engine models neither the fault bounds (--max-controlled-shutdowns, "
            "--max-session-expiries, --max-controller-failovers, --max-delayed-fetches) nor "
            "--hw-checkpoint interval, --fetch-from-followers or no-read-loss; they need the "
            "compiled engine "
            "(--engine compiled)")
    if not reference_supports(config):
        preset, switch = PRESETS[config.protocol], RESET_FOLLOWERS_ON_EPOCH.name
        wanted = ", ".join(config.rules) or "none"
        raise ConfigError(
            f"this engine models only the named protocols' rule sets (protocol "
            f"{config.protocol}: {', '.join(preset) or 'no rules'}, with or without {switch} and "
            f"{ISR_EXPANSION_AS_OWN_STEP.name}); the rules asked for ({wanted}) need the compiled "
            f"engine (--engine compiled)")
    return cls(config)
