fetch("/about").then(r => r.json()).then(about => {
  document.getElementById("about").textContent = `${about.title}: served from ${about.servedFrom}`;
});
