// Package kongmodel reads a kong command-line model by reflection: a command field's names as kong gives them, whether a command may be handed the parser or part of its model, and the model with one command only, which the command package parses the command line with when it can (building the whole one costs milliseconds at every start).
package kongmodel
