"""The Gymnasium environments: solitaire and table, single and vector, their observations and threads."""
