# The Shashki server and worker image (docker-compose.yml runs the cluster from it).
# A C compiler is installed for the build so that the hot paths are compiled with mypyc (setup.py).
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/shashki
COPY pyproject.toml setup.py README.md ./
COPY shashki ./shashki
RUN pip install --no-cache-dir . && apt-get purge -y gcc libc6-dev && apt-get autoremove -y
RUN useradd --system --home /srv/shashki shashki && mkdir -p /srv/shashki/data && chown shashki /srv/shashki/data
USER shashki
ENV SHASHKI_DATA=/srv/shashki/data SHASHKI_LOG_FORMAT=json
EXPOSE 8000
CMD ["shashki", "serve", "--host", "0.0.0.0", "--port", "8000"]
