"""The bottom layer: what judges judge (items, schemas), the judge protocol, the judgment
envelope, labels, and the text and file helpers everything else shares."""

__all__: list[str] = []
