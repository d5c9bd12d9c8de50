"""Pod Security Standards: PodSecurity admission of every pod template (PSS rules)."""
