"""Judges that need no model: usable alone, as baselines, and as the fallback."""
